import type { AblationScores } from "./ablation.js";
import type { QuestionRecall } from "./longmemeval-run.js";
import { HALVES, type Half, halfOf } from "./retrieval-split.js";

/** How a window is judged to hold an evidence turn: through its items' source events, or by the turn's whole text. */
export type Measure = "bySource" | "byText";

/** The key under which `scoresByHalf` puts BM25 over the same raw turns. */
export const BM25 = "bm25";

/** A LongMemEval question's half of the retrieval split. */
export const halfOfQuestion = (questionId: string): Half => halfOf(`longmemeval/${questionId}`);

/**
 * Each value's recall under `measure`, by half (the parts `ablation.ts` compares), each question's
 * category its type; beside them, under `BM25`, the baseline on the same questions. Questions keep
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
  const scores: AblationScores = {};
  for (const [value, recalls] of Object.entries(results)) scores[value] = byHalf(recalls, (question) => question[measure]);
  scores[BM25] = byHalf(Object.values(results)[0] ?? [], (question) => question.bm25);
  return scores;
}
