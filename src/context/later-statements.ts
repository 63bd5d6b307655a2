import type { RecalledMemory } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement, StatementAnchor } from "../memory/recall/later-statements.js";

/** A user's statement of the window — a fact, or a turn of the user's own — that what was said since may qualify. */
const isStatement = (memory: RecalledMemory) => memory.type === "semantic" || (memory.subtype === "turn" && memory.role === "user");

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
