import type { LanguageModel } from "../types.js";
import { summarizeExtractively } from "./extractive-summarizer.js";
import { extractByRules } from "./rule-extractor.js";

/**
 * The language model of the embedded default: extractive summaries and rule-based extraction.
 * Deterministic, offline, and it never states anything the conversation did not say.
 */
export const offlineLanguageModel: LanguageModel = {
  id: "offline-rules-v1",
  summarize: async (request) => summarizeExtractively(request.turns, request.maxWords),
  extract: async (request) => extractByRules(request),
};
