import { join } from "node:path";
import { compareByCategory, crossValidate, formatComparison } from "../src/eval/ablation.js";
import { evaluationEnv, evaluationModels, modelsLine } from "../src/eval/evaluation-env.js";
import { loadLongMemEval } from "../src/eval/longmemeval.js";
import { ablateLongMemEval } from "../src/eval/longmemeval-ablation.js";
import { BM25, halfOfQuestion, type Measure, scoresByHalf, VECTOR } from "../src/eval/longmemeval-report.js";
import { pickSubset } from "../src/eval/longmemeval-subset.js";
import { HALVES } from "../src/eval/retrieval-split.js";
import { scriptArgs } from "./script-args.js";

/**
 * `npm run eval:longmemeval -- <dir> [--ablate RECALL_GRAPH --values 0,1] [--budgets 1000,2000,4000] [--limit N] [--types multi-session,…] [--half tuning] [--import-dir DIR]`:
 * evidence recall of context windows on LongMemEval (shared/data/longmemeval-dev/README.md). Each
 * question's haystack is imported through the service as its own user, session by session at its
 * dates; then a context window is asked with the question as the query, at the question's date,
 * and scored: the share of the question's `has_answer` turns it holds, through its items' source
 * events (as LoCoMo) and, stricter, by the turn's whole text. Beside it, BM25 over the same raw turns.
 *
 * --limit takes a deterministic subset (each type's questions in sha256 order, taken in turn from
 * each type). The questions are split by a hash of their id into a tuning and a held-out half
 * (`src/eval/retrieval-split.ts`), reported apart. With --ablate, the questions are answered by
 * services that differ only in that setting, on copies of one import, and compared question by
 * question by type (± two standard errors of the paired difference); the value is chosen on the
 * tuning half only and reported on the held-out half. Runs on the embedded default, with the providers the shell names (offline when none).
 */
const { values, positionals } = scriptArgs(
  "npm run eval:longmemeval -- <dir> [--ablate NAME --values a,b] [--budgets 1000,2000,4000] [--limit N] [--types multi-session,…] [--half tuning|held-out] [--import-dir DIR]",
  {
    allowPositionals: true,
    options: {
      budgets: { type: "string", default: "1000,2000,4000" },
      limit: { type: "string", default: "" },
      types: { type: "string", default: "" },
      half: { type: "string", default: "" },
      ablate: { type: "string", default: "" },
      values: { type: "string", default: "0,1" },
      "import-dir": { type: "string", default: "" },
    },
  },
);
const dir = positionals[0] ?? "../shared/data/longmemeval-dev";
const budgets = (values.budgets as string).split(",").map(Number);
const limit = values.limit ? Number(values.limit) : undefined;
const types = (values.types as string).split(",").filter(Boolean);
const setting = (values.ablate as string) || undefined;
const settingValues = setting ? (values.values as string).split(",") : ["default"];
if (setting && settingValues.length !== 2) throw new Error("--values takes two values: without, with");
if (budgets.some((budget) => !Number.isInteger(budget) || budget < 16)) throw new Error(`--budgets: ${values.budgets}`);

const all = await loadLongMemEval(join(dir, "questions.jsonl.gz"));
const half = (values.half as string) || undefined;
if (half && !(HALVES as readonly string[]).includes(half)) throw new Error(`--half: ${half} (one of ${HALVES.join(", ")})`);
// --half tuning: settings are chosen on the tuning half without answering the held-out one.
const questions = pickSubset(all, { ...(limit !== undefined ? { limit } : {}), ...(types.length > 0 ? { types } : {}) }).filter(
  (question) => !half || halfOfQuestion(question.id) === half,
);
const halves = HALVES.map((half) => `${questions.filter((question) => halfOfQuestion(question.id) === half).length} ${half}`).join(" / ");
const subsetLine = `${questions.length} of ${all.length} questions${limit !== undefined ? ` (--limit ${limit})` : ""}${types.length > 0 ? `, types ${types.join(",")}` : ""}${half ? `, the ${half} half only` : ""}; halves ${halves}`;
console.log(`LongMemEval ${dir}: ${subsetLine}`);
console.log(modelsLine(await evaluationModels(evaluationEnv("memory://"))));
console.log(`subset: ${questions.map((question) => `${question.id} (${question.type}, ${halfOfQuestion(question.id)})`).join(", ")}`);

const started = Date.now();
const run = await ablateLongMemEval({
  questions,
  budgets,
  ...(setting ? { setting } : {}),
  values: settingValues,
  ...(values["import-dir"] ? { importDir: values["import-dir"] as string } : {}),
  log: (line) => console.log(line),
});
const wall = `wall time ${((Date.now() - started) / 60_000).toFixed(1)} min: import ${(run.importMs / 60_000).toFixed(1)} min, answering ${Object.entries(
  run.answerMs,
)
  .map(([value, ms]) => `${setting ? `${setting}=${value}` : value} ${(ms / 60_000).toFixed(1)} min`)
  .join(", ")}`;

const MEASURES: Record<Measure, string> = {
  bySource: "held through the items' source events (as LoCoMo)",
  byText: "the turn's whole text verbatim in one item",
  all: "all held (recall_all: every evidence turn of the question, through source events)",
};
const [without, withValue] = setting ? (settingValues as [string, string]) : [BM25, "default"];
const heading = setting ? `${setting}=${without} → ${withValue}` : "BM25 over the same raw turns → context windows (default settings)";
console.log(
  `\nLongMemEval evidence recall by question type, ${heading}, same questions (± two standard errors of the paired difference); ${subsetLine}`,
);
for (const [measure, meaning] of Object.entries(MEASURES) as [Measure, string][]) {
  const scores = scoresByHalf(run.results, measure);
  for (const parts of [["held-out"], ["tuning"], [...HALVES]]) {
    console.log(`\n${parts.length > 1 ? "both halves" : `${parts[0]} half`}, evidence ${meaning}`);
    for (const line of formatComparison(compareByCategory(scores, without, withValue, parts, budgets), budgets)) console.log(`  ${line}`);
  }
  if (setting) {
    for (const fold of crossValidate(scores, [without, withValue], [...HALVES], budgets).filter((fold) => fold.tunedOn === "tuning")) {
      console.log(
        `\n  chosen on the tuning half (mean over budgets): ${setting}=${fold.chosen}; on the held-out half, the other value → the chosen one:`,
      );
      for (const line of formatComparison(fold.against, budgets)) console.log(`    ${line}`);
    }
  }
}
if (setting) {
  console.log(`\nreference: BM25 over the same raw turns → ${setting}=${withValue}, both halves, evidence held through source events`);
  for (const line of formatComparison(
    compareByCategory(scoresByHalf(run.results, "bySource"), BM25, withValue, [...HALVES], budgets),
    budgets,
  ))
    console.log(`  ${line}`);
}
// One table per half: the windows beside both baselines from the same run, as a share and as recall_all.
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
for (const value of Object.keys(run.results)) {
  console.log(`\nsummary${setting ? ` (${setting}=${value})` : ""}: evidence held through source events, share [recall_all]`);
  console.log(
    `  ${"half".padEnd(9)} ${"n".padStart(3)}  ${"budget".padStart(6)}  ${"windows".padEnd(14)} ${"BM25".padEnd(14)} vector only`,
  );
  for (const parts of [["held-out"], ["tuning"]]) {
    const share = scoresByHalf(run.results, "bySource");
    const all = scoresByHalf(run.results, "all");
    const cell = (scores: typeof share, key: string, budget: number) =>
      mean(
        (scores[key]?.[parts[0] as string] ?? []).map((question) => question.recall[budget] ?? Number.NaN).filter((x) => !Number.isNaN(x)),
      );
    for (const budget of budgets) {
      const n = (share[value]?.[parts[0] as string] ?? []).length;
      const cells = [value, BM25, VECTOR].map((key) =>
        `${cell(share, key, budget).toFixed(3)} [${cell(all, key, budget).toFixed(2)}]`.padEnd(14),
      );
      console.log(`  ${(parts[0] as string).padEnd(9)} ${String(n).padStart(3)}  ${String(budget).padStart(6)}  ${cells.join(" ")}`);
    }
  }
}
console.log("\nwindows holding a memory the graph channel ranked (from the receipts), of all windows, and such memories in all");
for (const [value, recalls] of Object.entries(run.results))
  console.log(
    `  ${setting ? `${setting}=${value}` : value}: ${budgets
      .map((budget) => {
        const counts = recalls.map((question) => question.graphRanked[budget] ?? 0);
        return `at ${budget} ${counts.filter((count) => count > 0).length} of ${counts.length} (${counts.reduce((sum, count) => sum + count, 0)})`;
      })
      .join(", ")}`,
  );
console.log(`\n${wall}`);
console.log(
  JSON.stringify({
    eval: "longmemeval",
    setting: setting ?? null,
    values: settingValues,
    budgets,
    subset: questions.map((question) => ({ id: question.id, type: question.type, half: halfOfQuestion(question.id) })),
    import_ms: run.importMs,
    answer_ms: run.answerMs,
    results: run.results,
  }),
);
process.exit(0);
