import type { Extraction, Extractor } from "../../providers/extraction.js";
import type { ExtractionRequest } from "../../providers/types.js";

export type { Extraction, Extractor } from "../../providers/extraction.js";
export type { ExtractionRequest } from "../../providers/types.js";

/**
 * Reads what a chunk of conversation says about the user against what the memory holds: given the
 * chunk's turns (each with its seq) and the user's current facts (`knownFacts`, most recently
 * changed first), it returns each fact with its operation — to add (ADD), or what it does to a
 * current fact: updates it with a changed value (UPDATE), ends it (DELETE), corrects a value that
 * was wrong (CORRECT), restates it (NOOP) — with the insights, trait evidence, entities and
 * relations of the same turns, every item citing them, and the `extractor` that read them (a name
 * and a version that moves whenever what it reads changes), which every memory it writes records.
 *
 * The LLM providers (Gemini, OpenAI-compatible) are the main implementation: one structured call
 * whose prompt shows the current facts (src/providers/prompts.ts). The offline reader of the
 * embedded default (src/providers/offline/) is the second: grammar and small closed word classes,
 * precision first. Both are `LanguageModel`s, which satisfy this interface; consolidation
 * (`consolidateChunk`) applies whatever either returns by the same rules.
 *
 * @example
 * const extractor: FactExtractor = createGeminiLanguageModel({ apiKey, model: "gemini-3.8-flash" });
 * const { facts, extractor: by } = await extractor.extract({ turns: [{ role: "user", content: "I moved to Lyon.", seq: 4 }], knownFacts });
 * // facts: [{ key: "profile:location", operation: "UPDATE", … }], by: { name: "gemini", model: "gemini-3.8-flash", prompt_version: "…", … }
 */
export interface FactExtractor {
  extract(request: ExtractionRequest): Promise<Extraction>;
}

/**
 * How history and reasons name an extractor: "offline-rules 453ab79c1a60", "gemini gemini-3.8-flash prompt 1f2e3d4c5b6a".
 *
 * @example
 * describeExtractor({ name: "offline-rules", version: "453ab79c1a60" }); // "offline-rules 453ab79c1a60"
 */
export function describeExtractor(extractor: Extractor): string {
  return `${extractor.name} ${extractor.version}`;
}
