import { mean } from "./locomo-run.js";

/** One question's evidence recall by budget, under its category ("1" multi-hop…, "multi-session"…). */
export interface QuestionScore {
  category: string;
  recall: Record<number, number>;
}

/** Each question's scores under each value of the setting, by part (a conversation, a fold of questions), in the same order. */
export type AblationScores = Record<string, Record<string, QuestionScore[]>>;

/** A paired difference of means (value B − value A over the same questions) and its standard error. */
export interface PairedDifference {
  n: number;
  a: number;
  b: number;
  difference: number;
  standardError: number;
}

/**
 * Mean recall of `a` and `b` on the same questions, their difference and the difference's
 * standard error (the per-question differences' standard deviation over √n): two runs of one
 * question set are compared question by question, so what differs between questions is not noise.
 *
 * @example
 * pairedDifference([0.5, 1], [1, 1]); // { n: 2, a: 0.75, b: 1, difference: 0.25, standardError: 0.25 }
 */
export function pairedDifference(a: readonly number[], b: readonly number[]): PairedDifference {
  const differences = a.map((value, index) => (b[index] as number) - value);
  const n = differences.length;
  const average = mean(differences);
  const variance = n > 1 ? differences.reduce((sum, value) => sum + (value - average) ** 2, 0) / (n - 1) : 0;
  return { n, a: mean([...a]), b: mean([...b]), difference: average, standardError: Math.sqrt(variance / Math.max(n, 1)) };
}

/** The value with the best mean recall over `budgets` on `part` (ties: the first given). */
export function chooseValue(scores: AblationScores, values: readonly string[], part: string, budgets: readonly number[]): string {
  const score = (value: string) =>
    mean((scores[value]?.[part] ?? []).flatMap((question) => budgets.map((budget) => question.recall[budget] ?? Number.NaN)));
  return values.reduce((best, value) => (score(value) > score(best) ? value : best));
}

/** Per category and budget: `without` → `with` on the same questions of `parts`. */
export function compareByCategory(
  scores: AblationScores,
  without: string,
  withValue: string,
  parts: readonly string[],
  budgets: readonly number[],
): Record<string, Record<number, PairedDifference>> {
  const a = parts.flatMap((part) => scores[without]?.[part] ?? []);
  const b = parts.flatMap((part) => scores[withValue]?.[part] ?? []);
  const categories = [...new Set(a.map((question) => question.category))].sort();
  const table: Record<string, Record<number, PairedDifference>> = {};
  for (const category of [...categories, "all"]) {
    const picked = (questions: QuestionScore[]) => questions.filter((question) => category === "all" || question.category === category);
    table[category] = Object.fromEntries(
      budgets.map((budget) => [
        budget,
        pairedDifference(
          picked(a).map((question) => question.recall[budget] ?? Number.NaN),
          picked(b).map((question) => question.recall[budget] ?? Number.NaN),
        ),
      ]),
    );
  }
  return table;
}

/** One fold of the cross-validation: the value chosen on `tunedOn` and how it does on `reportedOn`, against the other value. */
export interface AblationFold {
  tunedOn: string;
  reportedOn: string;
  chosen: string;
  /** Against the value not chosen, on the reported part, by category and budget. */
  against: Record<string, Record<number, PairedDifference>>;
}

/** Two-fold (or k-fold) cross-validation over the parts: choose on one, report on each other. */
export function crossValidate(
  scores: AblationScores,
  values: readonly [string, string],
  parts: readonly string[],
  budgets: readonly number[],
): AblationFold[] {
  return parts.flatMap((tunedOn) => {
    const chosen = chooseValue(scores, values, tunedOn, budgets);
    const other = values.find((value) => value !== chosen) as string;
    return parts
      .filter((part) => part !== tunedOn)
      .map((reportedOn) => ({ tunedOn, reportedOn, chosen, against: compareByCategory(scores, other, chosen, [reportedOn], budgets) }));
  });
}

/** Lines of a table: category, then per budget "a → b (±2 SE)". */
export function formatComparison(table: Record<string, Record<number, PairedDifference>>, budgets: readonly number[]): string[] {
  const cell = (d: PairedDifference) =>
    `${d.a.toFixed(3)} → ${d.b.toFixed(3)} (${d.difference >= 0 ? "+" : ""}${d.difference.toFixed(3)} ± ${(2 * d.standardError).toFixed(3)})`.padEnd(
      36,
    );
  // Wide enough for LongMemEval's question types ("single-session-preference"); LoCoMo's keep 18.
  const width = Math.max(18, ...Object.keys(table).map((category) => category.length + 1));
  return [
    `${"category".padEnd(width)} ${"n".padStart(4)}  ${budgets.map((budget) => `at ${budget}`.padEnd(36)).join("")}`,
    ...Object.entries(table).map(
      ([category, byBudget]) =>
        `${category.padEnd(width)} ${String(byBudget[budgets[0] as number]?.n ?? 0).padStart(4)}  ${budgets.map((budget) => cell(byBudget[budget] as PairedDifference)).join("")}`,
    ),
  ];
}
