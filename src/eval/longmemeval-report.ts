import type { AblationScores } from "./ablation.js";
import type { QuestionRecall } from "./longmemeval-run.js";
import { HALVES, type Half, halfOf } from "./retrieval-split.js";

/**
 * How a window is judged to hold the evidence: the share of evidence turns held through its items'
 * source events, the share whose whole text is verbatim in one item, or whether every evidence turn
 * is held through the sources (`recall_all`: 1 or 0 per question).
 */
export type Measure = "bySource" | "byText" | "all";

/** The keys under which `scoresByHalf` puts the baselines over the same raw turns. */
export const BM25 = "bm25";
export const VECTOR = "vector";

/** A LongMemEval question's half of the retrieval split. */
export const halfOfQuestion = (questionId: string): Half => halfOf(`longmemeval/${questionId}`);

const allHeld = (shares: Record<number, number>): Record<number, number> =>
  Object.fromEntries(Object.entries(shares).map(([budget, share]) => [budget, share === 1 ? 1 : 0]));

/**
 * Each value's recall under `measure`, by half (the parts `ablation.ts` compares), each question's
 * category its type; beside them, under `BM25` and `VECTOR`, the baselines on the same questions
 * (measured by the turns they pack, so "byText" and "bySource" agree for them). Questions keep
 * their order in every value, so the comparisons pair them.
 *
 * @example
 * compareByCategory(scoresByHalf(run.results, "bySource"), "0", "1", ["held-out"], [1000, 2000]);
 */
export function scoresByHalf(results: Readonly<Record<string, readonly QuestionRecall[]>>, measure: Measure): AblationScores {
  const byHalf = (recalls: readonly QuestionRecall[], pick: (question: QuestionRecall) => Record<number, number>) =>
    Object.fromEntries(
      HALVES.map((half) => [
        half,
        recalls
          .filter((question) => halfOfQuestion(question.id) === half)
          .map((question) => ({ category: question.type, recall: pick(question) })),
      ]),
    );
  const window = (question: QuestionRecall) =>
    measure === "all" ? allHeld(question.bySource) : measure === "byText" ? question.byText : question.bySource;
  const baseline = (shares: Record<number, number>) => (measure === "all" ? allHeld(shares) : shares);
  const scores: AblationScores = {};
  for (const [value, recalls] of Object.entries(results)) scores[value] = byHalf(recalls, window);
  const first = Object.values(results)[0] ?? [];
  scores[BM25] = byHalf(first, (question) => baseline(question.bm25));
  scores[VECTOR] = byHalf(first, (question) => baseline(question.vector));
  return scores;
}
