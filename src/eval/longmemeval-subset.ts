import { createHash } from "node:crypto";

/** The position of a question in the fixed order subsets are taken from: sha256 of its id. */
export function subsetKey(questionId: string): string {
  return createHash("sha256").update(`lme-subset:${questionId}`).digest("hex");
}

/**
 * A deterministic subset of at most `limit` questions: of the `types` asked (all when empty), each
 * type's questions in `subsetKey` order, taken in turn from each type (types alphabetically), so a
 * small subset still holds every type. The same ids and options give the same subset, in the same order.
 *
 * @example
 * pickSubset(questions, { limit: 12 }) // two of each of the six types
 */
export function pickSubset<Question extends { id: string; type: string }>(
  questions: readonly Question[],
  options: { limit?: number; types?: readonly string[] } = {},
): Question[] {
  const wanted = options.types && options.types.length > 0 ? new Set(options.types) : undefined;
  const byType = new Map<string, Question[]>();
  for (const question of questions) {
    if (wanted && !wanted.has(question.type)) continue;
    byType.set(question.type, [...(byType.get(question.type) ?? []), question]);
  }
  const queues = [...byType.keys()]
    .sort()
    .map((type) => [...(byType.get(type) ?? [])].sort((a, b) => subsetKey(a.id).localeCompare(subsetKey(b.id))));
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const picked: Question[] = [];
  for (let round = 0; picked.length < limit && queues.some((queue) => queue.length > round); round++)
    for (const queue of queues) {
      const next = queue[round];
      if (next && picked.length < limit) picked.push(next);
    }
  return picked;
}
