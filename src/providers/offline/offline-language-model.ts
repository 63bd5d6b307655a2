import type { LanguageModel } from "../types.js";
import { extractiveSummary } from "./extractive-summarizer.js";
import { extractByRules } from "./rule-extractor.js";

/**
 * The language model of the embedded default: extractive summaries and rule-based extraction.
 * Deterministic, offline, and it never states anything the conversation did not say.
 */
export const offlineLanguageModel: LanguageModel = {
  id: "offline-rules-v1",
  async summarize(request) {
    const { text, quotedTurns } = extractiveSummary(request.turns, request.maxWords);
    // Provenance is exact: only the quoted turns are sources of the summary.
    const sourceSeqs = quotedTurns.map((index) => request.turns[index]?.seq).filter((seq): seq is number => seq !== undefined);
    return sourceSeqs.length === quotedTurns.length ? { text, sourceSeqs } : { text };
  },
  extract: async (request) => extractByRules(request),
};
