import { GoogleGenerativeAI } from "@google/generative-ai";
import type { LanguageModel, SummaryRequest } from "../types.js";
import { toProviderError } from "./gemini-errors.js";

export interface GeminiOptions {
  apiKey: string;
  model: string;
  /** Overrides the API endpoint (a proxy, or the recorded-response server in tests). */
  baseUrl?: string;
}

/** The fast-replay prompt of seed 000 §8.1, in English. */
export function summaryPrompt(request: SummaryRequest): string {
  const conversation = request.turns.map((turn) => `${turn.role}: ${turn.content}`).join("\n");
  return [
    "You are an expert at summarising conversations. Compress the conversation below into one concise summary that keeps the key information.",
    "",
    "Conversation:",
    conversation,
    "",
    "Requirements:",
    `1. At most ${request.maxWords} words.`,
    "2. Keep the user's key questions and the agent's core answers.",
    "3. Keep every important decision or conclusion.",
    "4. Write in the third person.",
    "",
    "Output only the summary, with no prefix or explanation.",
  ].join("\n");
}

/**
 * Gemini through `@google/generative-ai`.
 *
 * @example
 * const llm = createGeminiLanguageModel({ apiKey: env.GEMINI_API_KEY, model: "gemini-2.0-flash" });
 * await llm.summarize({ turns, maxWords: 200 });
 */
export function createGeminiLanguageModel(options: GeminiOptions): LanguageModel {
  const model = new GoogleGenerativeAI(options.apiKey).getGenerativeModel(
    { model: options.model, generationConfig: { temperature: 0.2 } },
    options.baseUrl ? { baseUrl: options.baseUrl } : undefined,
  );
  return {
    id: `gemini:${options.model}`,
    async summarize(request) {
      try {
        const result = await model.generateContent(summaryPrompt(request));
        return result.response.text().trim();
      } catch (error) {
        throw toProviderError(error, "summarize");
      }
    },
  };
}
