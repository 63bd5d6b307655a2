import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { startRuntime } from "../functions/node-runtime.js";
import { compareByCategory, crossValidate, formatComparison } from "../src/eval/ablation.js";
import { evaluationEnv, evaluationModels, modelsLine } from "../src/eval/evaluation-env.js";
import { loadLocomo } from "../src/eval/locomo.js";
import { ablateLocomo } from "../src/eval/locomo-ablation.js";
import { crossValidateLocomo, TUNED_SETTINGS } from "../src/eval/locomo-cv.js";
import { evaluateLocomo, importLocomo, liveOn, mean, type QuestionRecall } from "../src/eval/locomo-run.js";
import { ManualClock } from "../src/util/clock.js";
import { scriptArgs } from "./script-args.js";

/**
 * `npm run eval:locomo -- <dir> --cv [--setting CONTEXT_FOLLOWING_TURNS] [--grid 0,5,10,20]`: the
 * same recall, cross-validated over one of the settings chosen on this data (CONTEXT_FOLLOWING_TURNS,
 * RECALL_MIN_TEXT_COVERAGE): chosen on one conversation, reported on the other.
 *
 * `npm run eval:locomo -- <dir> --ablate RECALL_GRAPH [--values 0,1] [--import-dir DIR]`: the same questions answered
 * by services that differ only in one setting, on one import, by question category: each value's
 * recall, the paired difference (± two standard errors), and a cross-validation that chooses the
 * value on one conversation and reports it against the other value on the other.
 *
 * `npm run eval:locomo -- <dir> [--budgets 500,1000,2000,4000] [--days 60,365]`: evidence recall of
 * context windows on LoCoMo (categories 1-4), next to BM25 and newest-turns baselines computed in
 * the same run on the same turn texts. Each conversation lives on its own dates (a simulated
 * clock); with --days, the service then lives on that many days with the nightly decay pass of the
 * default settings, and recall is measured again at each checkpoint. Runs on the embedded default, with the providers the shell names (offline when none).
 */
const { values, positionals } = scriptArgs(
  "npm run eval:locomo -- <dir> [--budgets 500,1000,2000,4000] [--days 60,365] | --cv [--setting NAME] [--grid a,b,…] | --ablate NAME [--values a,b] [--import-dir DIR]",
  {
    allowPositionals: true,
    options: {
      budgets: { type: "string", default: "500,1000,2000,4000" },
      days: { type: "string", default: "" },
      /** Cross-validate --setting over --grid: choose on one conversation, report on the other. */
      cv: { type: "boolean", default: false },
      setting: { type: "string", default: "CONTEXT_FOLLOWING_TURNS" },
      grid: { type: "string", default: "0,5,10,20" },
      /** Compare the values of one setting on the same import, by question category. */
      ablate: { type: "string", default: "" },
      values: { type: "string", default: "0,1" },
      /** With --ablate: keep the import here, and answer a kept one again without importing. */
      "import-dir": { type: "string", default: "" },
    },
  },
);
// A plain run imports into memory (and lives on with --days), as --cv does: only an ablation keeps its import.
if (values["import-dir"] && !values.ablate) {
  console.error("--import-dir: only with --ablate, which answers one kept import with each value");
  process.exit(2);
}
const dir = positionals[0] ?? "../shared/data/locomo-dev";
const budgets = (values.budgets as string).split(",").map(Number);
const checkpoints = (values.days as string)
  .split(",")
  .filter(Boolean)
  .map(Number)
  .sort((a, b) => a - b);
const files = (await readdir(dir)).filter((file) => file.endsWith(".json")).sort();
console.log(`LoCoMo ${dir}: ${modelsLine(await evaluationModels(evaluationEnv("memory://")))}`);

if (values.ablate) {
  const settingValues = (values.values as string).split(",") as [string, string];
  const importDir = (values["import-dir"] as string) || undefined;
  const scores = await ablateLocomo({
    dir,
    files,
    budgets,
    setting: values.ablate as string,
    values: settingValues,
    ...(importDir ? { importDir } : {}),
  });
  const [without, withValue] = settingValues;
  console.log(
    `\nevidence recall by category, ${values.ablate}=${without} → ${withValue}, same questions (± two standard errors of the paired difference)`,
  );
  for (const file of files) {
    console.log(`\n${file}`);
    for (const line of formatComparison(compareByCategory(scores, without, withValue, [file], budgets), budgets)) console.log(`  ${line}`);
  }
  console.log("\nboth conversations");
  for (const line of formatComparison(compareByCategory(scores, without, withValue, files, budgets), budgets)) console.log(`  ${line}`);
  console.log(
    "\ncross-validated: the value chosen on one conversation (mean over budgets), against the other value on the other conversation",
  );
  for (const fold of crossValidate(scores, settingValues, files, budgets)) {
    console.log(`\n  chosen on ${fold.tunedOn}: ${values.ablate}=${fold.chosen}; on ${fold.reportedOn}, the other value → the chosen one:`);
    for (const line of formatComparison(fold.against, budgets)) console.log(`    ${line}`);
  }
  console.log(JSON.stringify({ eval: "locomo-ablation", setting: values.ablate, values: settingValues, files, budgets, scores }));
  process.exit(0);
}

if (values.cv) {
  const grid = (values.grid as string).split(",").map(Number);
  const setting = z.enum(TUNED_SETTINGS).parse(values.setting);
  const { grid: results, folds } = await crossValidateLocomo({ dir, files, budgets, setting, grid });
  console.log(`\nevidence recall by ${setting} (rows) and conversation, at ${budgets.join(" / ")} tokens`);
  for (const value of grid)
    for (const file of files)
      console.log(
        `  ${String(value).padStart(3)}  ${file.padEnd(10)} ${budgets.map((b) => (results[value]?.[file]?.[b] ?? Number.NaN).toFixed(3)).join(" / ")}`,
      );
  console.log(
    `\ncross-validated (chosen on one conversation, reported on the other)\n${"budget".padEnd(8)} ${folds.map((f) => `${f.tunedOn}→${f.reportedOn} (${f.chosen})`.padStart(22)).join(" ")} ${"mean".padStart(7)}`,
  );
  for (const budget of budgets) {
    const cells = folds.map((fold) => fold.recall[budget] ?? Number.NaN);
    console.log(
      `${String(budget).padEnd(8)} ${cells.map((cell) => cell.toFixed(3).padStart(22)).join(" ")} ${mean(cells).toFixed(3).padStart(7)}`,
    );
  }
  console.log(JSON.stringify({ eval: "locomo-cv", setting, files, budgets, grid: results, folds }));
  process.exit(0);
}

const clock = new ManualClock(new Date("2023-01-01T00:00:00Z"));
const runtime = await startRuntime(evaluationEnv("memory://"), { clock });
/** Results by checkpoint (0 = fresh, the day after the last session) and conversation. */
const results = new Map<number, Map<string, QuestionRecall[]>>();
const record = (day: number, file: string, recalls: QuestionRecall[]) => {
  const byFile = results.get(day) ?? new Map<string, QuestionRecall[]>();
  byFile.set(file, recalls);
  results.set(day, byFile);
};
try {
  for (const file of files) {
    const conversation = await loadLocomo(join(dir, file));
    const imported = await importLocomo(runtime, clock, conversation, `locomo-${basename(file, ".json")}`);
    const fresh = new Date(imported.lastSessionAt.getTime() + 86_400_000);
    clock.set(fresh);
    record(0, file, await evaluateLocomo(runtime, conversation, imported, budgets));
    let lived = 0;
    for (const day of checkpoints) {
      const { forgotten } = await liveOn(runtime, clock, imported.userId, new Date(fresh.getTime() + lived * 86_400_000), day - lived);
      lived = day;
      console.log(`${file}: day ${day}, ${forgotten} memories forgotten since the last checkpoint`);
      record(day, file, await evaluateLocomo(runtime, conversation, imported, budgets));
    }
    console.log(
      `${file}: ${conversation.sessions.length} sessions, ${imported.turns.length} turns, ${results.get(0)?.get(file)?.length} questions`,
    );
  }
  const all = (day: number) => [...(results.get(day)?.values() ?? [])].flat();
  console.log(
    `\nevidence recall, fresh (mean over questions, categories 1-4)\n${"budget".padEnd(8)} ${"ours".padStart(7)} ${"bm25".padStart(7)} ${"newest".padStart(7)}`,
  );
  for (const budget of budgets) {
    const fresh = all(0);
    console.log(
      `${String(budget).padEnd(8)} ${mean(fresh.map((q) => q.ours[budget] as number))
        .toFixed(3)
        .padStart(7)} ${mean(fresh.map((q) => q.bm25[budget] as number))
        .toFixed(3)
        .padStart(7)} ${mean(fresh.map((q) => q.newest[budget] as number))
        .toFixed(3)
        .padStart(7)}`,
    );
  }
  for (const file of files) {
    const row = budgets
      .map((budget) => mean((results.get(0)?.get(file) ?? []).map((q) => q.ours[budget] as number)).toFixed(3))
      .join(" / ");
    console.log(`  ${file} ours at ${budgets.join(" / ")}: ${row}`);
  }
  for (const day of checkpoints) {
    const row = budgets
      .map(
        (budget) =>
          `${mean(all(day).map((q) => q.ours[budget] as number)).toFixed(3)} (fresh ${mean(all(0).map((q) => q.ours[budget] as number)).toFixed(3)})`,
      )
      .join(" · ");
    console.log(`after ${day} days of nightly decay, ours at ${budgets.join(" / ")}: ${row}`);
  }
  const byCategory = new Map<number, number[]>();
  for (const question of all(0))
    byCategory.set(question.category, [...(byCategory.get(question.category) ?? []), question.ours[2000] ?? Number.NaN]);
  if (budgets.includes(2000)) {
    console.log(
      `\nours at 2000 tokens by category: ${[...byCategory]
        .sort()
        .map(([category, recalls]) => `c${category}=${mean(recalls).toFixed(3)} (n=${recalls.length})`)
        .join(", ")}`,
    );
  }
  const summary = (day: number) =>
    Object.fromEntries(budgets.map((budget) => [budget, mean(all(day).map((q) => q.ours[budget] as number))]));
  console.log(
    JSON.stringify({
      eval: "locomo",
      files,
      budgets,
      recall: {
        ours: summary(0),
        bm25: Object.fromEntries(budgets.map((budget) => [budget, mean(all(0).map((q) => q.bm25[budget] as number))])),
        newest: Object.fromEntries(budgets.map((budget) => [budget, mean(all(0).map((q) => q.newest[budget] as number))])),
      },
      after_days: Object.fromEntries(checkpoints.map((day) => [day, summary(day)])),
    }),
  );
} finally {
  await runtime.close();
}
