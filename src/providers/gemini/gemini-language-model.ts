import { GoogleGenerativeAI } from "@google/generative-ai";
import { type Extraction, ExtractionSchema } from "../extraction.js";
import { type ExtractionRequest, type LanguageModel, ProviderError, type SummaryRequest } from "../types.js";
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

/** The deep-reflection prompt of seed 000 §8.1, in English, extended with trait evidence. */
export function extractionPrompt(request: ExtractionRequest): string {
  const conversation = request.turns.map((turn) => `[${turn.seq}] ${turn.role}: ${turn.content}`).join("\n");
  return [
    "You analyse conversations to build a user profile. Extract the user's key information: preferences, rules and facts.",
    "",
    "Conversation (each turn starts with its sequence number in brackets):",
    conversation,
    "",
    "Answer with JSON only, in this shape:",
    '{"facts": [{"type": "preference|rule|profile", "key": "stable identifier, e.g. attitude:cats, profile:location, favorite:food",',
    '  "value": "the content (string or object)", "content": "one third-person sentence, e.g. User loves cats.",',
    '  "confidence": 0.0-1.0, "operation": "ADD or DELETE (DELETE when the user retracts what the key said)", "source_seqs": [sequence numbers]}],',
    ' "insights": [{"content": "a deeper insight drawn from the conversation", "importance": "high|medium|low", "source_seqs": [...]}],',
    ' "traits": [{"subtype": "behavior|preference|core", "key": "e.g. likes:cats, behavior:cycles_to_work", "content": "User likes cats.",',
    '  "direction": "supporting|contradicting", "quality": "A (explicit, emphatic) | B (explicit) | C (inferred from behaviour) | D (weak)", "source_seqs": [...]}]}',
    "",
    "Rules:",
    "1. Extract only what the user stated or what can be inferred reliably; never invent.",
    "2. preference: likes, dislikes, favourites. rule: standing instructions (e.g. no meetings on Fridays). profile: facts about the user (job, home, family).",
    "3. Use the same key for statements about the same thing, so that a change of mind replaces the old fact.",
    "4. Every item cites the sequence numbers of the turns it comes from.",
    '5. If there is nothing to extract, answer {"facts": [], "insights": [], "traits": []}.',
  ].join("\n");
}

/**
 * Reads the model's JSON, repairing the usual damage (code fences, prose around the object) and
 * validating it whole; anything still invalid is a retryable error, never a partial result.
 */
export function parseExtraction(text: string, allowedSeqs: Set<number>): Extraction {
  const unfenced = text.replace(/^\s*```(?:json)?\s*/i, "").replace(/\s*```\s*$/, "");
  const start = unfenced.indexOf("{");
  const end = unfenced.lastIndexOf("}");
  let raw: unknown;
  try {
    raw = JSON.parse(start >= 0 && end > start ? unfenced.slice(start, end + 1) : unfenced);
  } catch (error) {
    throw new ProviderError(`extraction output is not JSON: ${(error as Error).message}`, true);
  }
  const parsed = ExtractionSchema.safeParse(raw);
  if (!parsed.success) throw new ProviderError(`extraction output does not match the schema: ${parsed.error.message}`, true);
  const cited = [...parsed.data.facts, ...parsed.data.insights, ...parsed.data.traits].flatMap((item) => item.source_seqs);
  const unknown = cited.filter((seq) => !allowedSeqs.has(seq));
  if (unknown.length > 0) throw new ProviderError(`extraction cites turns that were not given: ${[...new Set(unknown)].join(", ")}`, true);
  return parsed.data;
}

/**
 * Gemini through `@google/generative-ai`.
 *
 * @example
 * const llm = createGeminiLanguageModel({ apiKey: env.GEMINI_API_KEY, model: "gemini-2.0-flash" });
 * await llm.summarize({ turns, maxWords: 200 });
 */
export function createGeminiLanguageModel(options: GeminiOptions): LanguageModel {
  const client = new GoogleGenerativeAI(options.apiKey);
  const requestOptions = options.baseUrl ? { baseUrl: options.baseUrl } : undefined;
  const summarizer = client.getGenerativeModel({ model: options.model, generationConfig: { temperature: 0.2 } }, requestOptions);
  const extractor = client.getGenerativeModel(
    { model: options.model, generationConfig: { temperature: 0, responseMimeType: "application/json" } },
    requestOptions,
  );
  return {
    id: `gemini:${options.model}`,
    async summarize(request) {
      try {
        const result = await summarizer.generateContent(summaryPrompt(request));
        return { text: result.response.text().trim() };
      } catch (error) {
        throw toProviderError(error, "summarize");
      }
    },
    async extract(request) {
      let text: string;
      try {
        text = (await extractor.generateContent(extractionPrompt(request))).response.text();
      } catch (error) {
        throw toProviderError(error, "extract");
      }
      return parseExtraction(text, new Set(request.turns.map((turn) => turn.seq)));
    },
  };
}
