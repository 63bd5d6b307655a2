import type { GenerateContentConfig, GenerateContentResponse } from "@google/genai";
import { extractionJsonSchema, parseExtraction } from "../extraction-output.js";
import { extractionPrompt, llmExtractor, summaryPrompt } from "../prompts.js";
import { type LanguageModel, ProviderError } from "../types.js";
import { type GeminiOptions, geminiClient } from "./gemini-client.js";
import { toProviderError } from "./gemini-errors.js";

export interface GeminiLanguageModelOptions extends GeminiOptions {
  /** Gemini 3 thinking level; unset leaves the model's default. */
  thinkingLevel?: "minimal" | "low" | "medium" | "high";
}

/**
 * Gemini through `@google/genai`: summaries as plain text, extraction as JSON constrained by the
 * response schema generated from ModelExtractionSchema.
 *
 * @example
 * const llm = createGeminiLanguageModel({ apiKey: env.GEMINI_API_KEY, model: "gemini-3.8-flash" });
 * await llm.summarize({ turns, maxWords: 200 });
 */
export function createGeminiLanguageModel(options: GeminiLanguageModelOptions): LanguageModel {
  const client = geminiClient(options);
  const thinking: GenerateContentConfig = options.thinkingLevel
    ? {
        thinkingConfig: {
          thinkingLevel: options.thinkingLevel.toUpperCase() as NonNullable<GenerateContentConfig["thinkingConfig"]>["thinkingLevel"],
        },
      }
    : {};
  const generate = async (operation: string, prompt: string, config: GenerateContentConfig): Promise<string> => {
    let response: GenerateContentResponse;
    try {
      response = await client.models.generateContent({ model: options.model, contents: prompt, config: { ...thinking, ...config } });
    } catch (error) {
      throw toProviderError(error, operation);
    }
    const text = response.text;
    if (!text?.trim()) {
      const reason = response.candidates?.[0]?.finishReason ?? response.promptFeedback?.blockReason ?? "no candidates";
      // A blocked prompt stays blocked; an empty answer for any other reason may not repeat.
      throw new ProviderError(`Gemini ${operation} returned no text (${reason})`, !response.promptFeedback?.blockReason);
    }
    return text;
  };
  const extractor = llmExtractor("gemini", options.model);
  return {
    id: `gemini:${options.model}`,
    async summarize(request) {
      return { text: (await generate("summarize", summaryPrompt(request), { temperature: 0.2 })).trim() };
    },
    async extract(request) {
      const text = await generate("extract", extractionPrompt(request), {
        temperature: 0,
        responseMimeType: "application/json",
        responseJsonSchema: extractionJsonSchema(),
      });
      return parseExtraction(text, new Set(request.turns.map((turn) => turn.seq)), extractor);
    },
  };
}
