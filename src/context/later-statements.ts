import type { RecalledMemory } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement, StatementAnchor } from "../memory/recall/later-statements.js";

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });
/** The speaker's own pronouns (a closed class): a sentence holding one says something of the speaker. */
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b/i;

/** Whether a turn says something of its speaker: one of its sentences, not a question, speaks in the first person. */
export function saysSomethingOfSpeaker(text: string): boolean {
  return [...SENTENCES.segment(text)].some(({ segment }) => !segment.trim().endsWith("?") && FIRST_PERSON.test(segment));
}

/**
 * A statement of the window that what was said since may qualify: a fact, or a turn in which the
 * user says something of themselves (a question asked of the assistant states nothing that can
 * change).
 */
const isStatement = (memory: RecalledMemory) =>
  memory.type === "semantic" || (memory.subtype === "turn" && memory.role === "user" && saysSomethingOfSpeaker(memory.content));

/**
 * The first `count` statements among the window's candidates, each with the moment past which the
 * user's later turns are looked at: when it was last said.
 */
export function statementsToLookPast(recalled: readonly RecalledMemory[], count: number): StatementAnchor[] {
  return recalled
    .filter(isStatement)
    .slice(0, count)
    .map((memory) => ({ id: memory.id, after: memory.lastConfirmedAt }));
}

/**
 * Each statement with the later statement to show beside it, and the candidates without the
 * turns now shown beside a statement. A later turn that recall ranked ahead of its statement is
 * already read first: the statement keeps no note, and the turn its place.
 */
export function besideLaterStatements(
  recalled: readonly RecalledMemory[],
  later: ReadonlyMap<string, readonly LaterStatement[]>,
): { candidates: RecalledMemory[]; laterOf: Map<string, LaterStatement> } {
  const position = new Map(recalled.map((memory, index) => [memory.id, index]));
  const laterOf = new Map<string, LaterStatement>();
  const attached = new Set<string>();
  for (const [index, memory] of recalled.entries()) {
    const best = later.get(memory.id)?.[0];
    if (!best || attached.has(best.memoryId)) continue;
    const ranked = position.get(best.memoryId);
    if (ranked !== undefined && ranked < index) continue;
    laterOf.set(memory.id, best);
    attached.add(best.memoryId);
  }
  return { candidates: recalled.filter((memory) => !attached.has(memory.id)), laterOf };
}
