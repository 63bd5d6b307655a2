import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRuntime } from "../functions/node-runtime.js";
import { EnvSchema } from "../src/config/env.js";
import { loadCaseSet } from "../src/eval/changes/case-set.js";
import { askCase, type CaseResult, summarise, withCaseInside } from "../src/eval/changes/changes-run.js";
import { linksLine, reachLine, type StatementLinks, statementLinks } from "../src/eval/changes/statement-links.js";
import { evaluationEnv, evaluationModels, modelsLine, refuseProviderSettings } from "../src/eval/evaluation-env.js";
import {
  copyKeptData,
  type KeptHistory,
  keptDataDir,
  misplacedHistories,
  readKeptImport,
  writeKeptImport,
} from "../src/eval/kept-import.js";
import { loadLongMemEval } from "../src/eval/longmemeval.js";
import { importHaystack, turnsOfEvents } from "../src/eval/longmemeval-run.js";
import { pickSubset } from "../src/eval/longmemeval-subset.js";
import { ManualClock } from "../src/util/clock.js";
import { scriptArgs } from "./script-args.js";

/**
 * `npm run eval:changes -- [--set src/eval/changes/tuning.txt] [--budgets 500,1000] [--database-url URL] [--only id,…] [--import-dir DIR] [--with NAME=VALUE,…]`:
 * changes of state said inside long real histories (docs/evaluation.md). Each case is said inside
 * its own LongMemEval development haystack (~500 turns): the first statement a quarter of the way
 * in, the change (or a control's mention) three quarters in, the question at the end. A window is
 * asked at each budget; it must hold the newest statement, never the old state alone, and a
 * control's state must stay. Embedded PGlite by default; `--database-url` runs on a Postgres.
 * `--import-dir` (embedded only) keeps the imported histories there, and answers a kept import
 * again without importing: a change of the read path is measured in minutes. `--links` also says,
 * for each change, where the embedder puts the two statements among the user's turns nearest the
 * question, and the cosine of the later one to the first: what the window's reading starts from;
 * and, for each budget, where the windows that miss the newest statement lost it.
 */
const { values } = scriptArgs(
  "npm run eval:changes -- [--set FILE] [--budgets 500,1000] [--database-url URL] [--only id,…] [--import-dir DIR] [--with NAME=VALUE,…] [--links] [--data DIR]",
  {
    options: {
      set: { type: "string", default: "src/eval/changes/tuning.txt" },
      budgets: { type: "string", default: "500,1000" },
      "database-url": { type: "string", default: "" },
      data: { type: "string", default: "../shared/data/longmemeval-dev" },
      only: { type: "string", default: "" },
      "import-dir": { type: "string", default: "" },
      links: { type: "boolean", default: false },
      /** Settings the answering service runs with, NAME=VALUE,… (the import keeps the defaults). */
      with: { type: "string", default: "" },
    },
  },
);
const budgets = (values.budgets as string).split(",").map(Number);
if (budgets.some((budget) => !Number.isInteger(budget) || budget < 64)) throw new Error(`--budgets: ${values.budgets}`);
const only = new Set((values.only as string).split(",").filter(Boolean));
const set = await loadCaseSet(values.set as string);
const cases = set.filter((entry) => only.size === 0 || only.has(entry.id));
const unknown = [...only].filter((id) => !set.some((entry) => entry.id === id));
if (unknown.length > 0) throw new Error(`--only: ${unknown.join(", ")}: no such case in ${values.set}`);
const haystacks = pickSubset(await loadLongMemEval(join(values.data as string, "questions.jsonl.gz")));
if (set.length > haystacks.length) throw new Error(`${set.length} cases but only ${haystacks.length} haystacks`);

const root = await mkdtemp(join(tmpdir(), "eval-changes-"));
const url = values["database-url"] as string;
const importDir = values["import-dir"] as string;
if (url && importDir) throw new Error("--import-dir keeps an embedded database: not with --database-url");
const clock = new ManualClock(new Date("2023-01-01T00:00:00Z"));
const run = Date.now().toString(36);
const answering = Object.fromEntries(
  (values.with as string)
    .split(",")
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new Error(`--with: "${pair}" is not NAME=VALUE`);
      return [pair.slice(0, at), pair.slice(at + 1)] as const;
    }),
);
refuseProviderSettings("--with", answering);
const results: CaseResult[] = [];
const links: StatementLinks[] = [];
// By its place in the whole set, so that a case is said in the same history with --only as without.
const haystackOf = (entry: (typeof set)[number]) => haystacks[set.indexOf(entry)] as (typeof haystacks)[number];
try {
  const answeringEnv = (dataDir: string) => evaluationEnv(dataDir, { ...answering, ...(url ? { DATABASE_URL: url } : {}) });
  console.log(`${values.set}: ${cases.length} entries on ${url ? "PostgreSQL" : "embedded PGlite"}, budgets ${budgets.join(", ")}`);
  const models = await evaluationModels(answeringEnv(root));
  console.log(modelsLine(models));
  const kept = importDir ? await readKeptImport(importDir, models.embedder) : new Map<string, KeptHistory>();
  // A kept case answered in another history than the set gives it would be reported under the wrong one.
  const historyOf = (id: string) => {
    const entry = set.find((candidate) => candidate.id === id);
    return entry ? haystackOf(entry).id : undefined;
  };
  const misplaced = misplacedHistories(kept, historyOf);
  if (misplaced.length > 0)
    throw new Error(`--import-dir ${importDir} holds ${misplaced.join(", ")} inside other histories than ${values.set} gives them`);
  const missing = cases.filter((entry) => !kept.has(entry.id));
  if (missing.length > 0) {
    // Said before the service first starts on the directory, so that an interrupted import still names its embedder.
    if (importDir) await writeKeptImport(importDir, models.embedder, kept.values());
    const importer = await startRuntime(
      evaluationEnv(importDir ? keptDataDir(importDir) : join(root, "data"), url ? { DATABASE_URL: url } : {}),
      {
        clock,
      },
    );
    try {
      for (const entry of missing) {
        const at = Date.now();
        const haystack = haystackOf(entry);
        const history = await importHaystack(importer, clock, withCaseInside(haystack, entry), `changes-${run}-${entry.id}`);
        kept.set(entry.id, { id: entry.id, userId: history.userId, lastTurnAt: history.lastTurnAt, history: haystack.id });
        if (importDir) await writeKeptImport(importDir, models.embedder, kept.values());
        console.log(`imported ${entry.kind} ${entry.id} in ${haystack.id} (${((Date.now() - at) / 1000).toFixed(0)} s)`);
      }
    } finally {
      await importer.close();
    }
  }
  if (importDir) await copyKeptData(importDir, join(root, "answer"));
  const runtime = await startRuntime(answeringEnv(importDir ? join(root, "answer") : join(root, "data")), { clock });
  try {
    for (const [index, entry] of cases.entries()) {
      const history = kept.get(entry.id) as KeptHistory;
      const imported = { ...history, turnByEvent: await turnsOfEvents(runtime, history.userId) };
      const result = await askCase(runtime, clock, entry, haystackOf(entry).id, imported, budgets);
      results.push(result);
      const cells = result.windows.map((window) =>
        result.kind === "case"
          ? `${window.budget}: ${window.newestHeld ? "newest held" : window.oldShown ? "OLD ALONE" : "neither"}`
          : `${window.budget}: ${window.kept ? "kept" : "LOST"}`,
      );
      if (values.links && entry.kind === "case") {
        const found = await statementLinks(runtime, entry, history.userId);
        links.push(found);
        cells.push(
          `first ${found.byQuestion.first} and later ${found.byQuestion.later} of ${found.userTurns} by the question (${found.byStatementForm.first} and ${found.byStatementForm.later} by its statement form), later to first ${found.firstToLater.toFixed(2)}`,
        );
      }
      console.log(`[${index + 1}/${cases.length}] ${entry.kind} ${entry.id} in ${haystackOf(entry).id}: ${cells.join(", ")}`);
    }
  } finally {
    await runtime.close();
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
console.log("");
for (const line of summarise(results, budgets))
  console.log(
    `at ${line.budget} tokens: newest statement held in ${line.newestHeld} of ${line.cases}, old state alone in ${line.oldAlone}; controls kept ${line.kept} of ${line.controls}`,
  );
if (values.links) {
  const floor = EnvSchema.shape.CONTEXT_LATER_SIMILARITY.parse(answering.CONTEXT_LATER_SIMILARITY);
  console.log(linksLine(links, floor));
  for (const budget of budgets) console.log(reachLine(results, links, floor, budget));
}
console.log(JSON.stringify({ eval: "changes", set: values.set, database: url ? "postgres" : "pglite", budgets, results, links }));
process.exit(0);
