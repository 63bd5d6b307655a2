import type { LanguageModel } from "../types.js";
import { extractiveSummary } from "./extractive-summarizer.js";

/** The rule extractor loads compromise and chrono-node (a noticeable part of start-up): on first use instead. */
let ruleExtractor: Promise<typeof import("./rule-extractor.js")> | undefined;
let graphExtractor: Promise<typeof import("./graph/graph-extractor.js")> | undefined;

/**
 * The language model of the embedded default: extractive summaries and rule-based extraction.
 * Deterministic, offline, and it never states anything the conversation did not say.
 */
export const offlineLanguageModel: LanguageModel = {
  // v2: the extractor on compromise and chrono-node (facts/), scored by `npm run eval:facts`.
  id: "offline-rules-v2",
  async summarize(request) {
    const { text, quotedTurns } = extractiveSummary(request.turns, request.maxWords);
    // Provenance is exact: only the quoted turns are sources of the summary.
    const sourceSeqs = quotedTurns.map((index) => request.turns[index]?.seq).filter((seq): seq is number => seq !== undefined);
    return sourceSeqs.length === quotedTurns.length ? { text, sourceSeqs } : { text };
  },
  async extract(request) {
    ruleExtractor ??= import("./rule-extractor.js");
    graphExtractor ??= import("./graph/graph-extractor.js");
    const [{ extractByRules }, { extractGraphByRules }] = await Promise.all([ruleExtractor, graphExtractor]);
    const extraction = extractByRules(request);
    // The entity graph: the facts' relations, and what the statements say of others.
    return { ...extraction, ...extractGraphByRules(request, extraction.facts, extractByRules) };
  },
};
