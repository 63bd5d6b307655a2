import type { Extractor } from "../extraction.js";
import type { LanguageModel } from "../types.js";
import { extractiveSummary } from "./extractive-summarizer.js";
import { OFFLINE_RULES_VERSION } from "./rules-version.js";

/** The rule extractor loads compromise and chrono-node (a noticeable part of start-up): on first use instead. */
let ruleExtractor: Promise<typeof import("./rule-extractor.js")> | undefined;
let graphExtractor: Promise<typeof import("./graph/graph-extractor.js")> | undefined;

/** The offline reader's record on the facts it writes: the rules' version moves with every change to them. */
export const OFFLINE_EXTRACTOR: Extractor = { name: "offline-rules", version: OFFLINE_RULES_VERSION };

/**
 * The language model of the embedded default: extractive summaries and rule-based extraction.
 * Deterministic, offline, and it never states anything the conversation did not say.
 */
export const offlineLanguageModel: LanguageModel = {
  // The rules' version (a hash of their sources): what a rebuild preview and the usage meter name.
  id: `offline-rules@${OFFLINE_RULES_VERSION}`,
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
    return { ...extraction, ...extractGraphByRules(request, extraction.facts, extractByRules), extractor: OFFLINE_EXTRACTOR };
  },
};
