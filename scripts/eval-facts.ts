import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { FACT_CASES, type FactCase } from "../src/eval/facts/cases.js";
import { HELD_OUT_FACT_CASES } from "../src/eval/facts/held-out-cases.js";
import { readLabelledFile } from "../src/eval/facts/labelled-set.js";
import { type PartScore, replayLabelled, summarise } from "../src/eval/facts/replay-labelled.js";
import { scoreFactCases } from "../src/eval/facts/score.js";
import { type Part, partOf } from "../src/eval/facts/split.js";
import { type ResolvedStream, resolveStreams } from "../src/eval/facts/stream-turns.js";
import { contradictedBy } from "../src/memory/contradictions/contradiction-rules.js";
import { extractByRules } from "../src/providers/offline/rule-extractor.js";
import { scriptArgs } from "./script-args.js";

/**
 * `npm run eval:facts [-- --held-out] [--unseen FILE] [--failures] [--data ../shared/data]`: the offline fact
 * extractor and the write path's closing rules on the labelled fact sets (src/eval/facts/labelled/:
 * every labelled turn of LoCoMo and LongMemEval dev, and the fresh sets by kind and by change of
 * state), by source: precision, recall and false current facts by kind, closures done. Only the
 * tuning part is scored unless --held-out is given (the held-out part is read once, at the end).
 * Then the project's older case sets. Exits non-zero when a held-out run leaves a false current fact.
 */
const { values } = scriptArgs("npm run eval:facts -- [--held-out] [--unseen FILE] [--failures] [--data ../shared/data]", {
  options: {
    "held-out": { type: "boolean", default: false },
    failures: { type: "boolean", default: false },
    data: { type: "string" },
    unseen: { type: "string" },
  },
});
/** The shared data sets: beside the main checkout (../shared) or beside the worktrees (../../shared). */
const dataDir = values.data ?? (existsSync("../shared/data") ? "../shared/data" : "../../shared/data");
const part: Part = values["held-out"] || values.unseen ? "held-out" : "tuning";
const labelledDir = new URL("../src/eval/facts/labelled/", import.meta.url).pathname;

// --unseen FILE: a set written after the rules were tuned, scored once and whole as held out.
const files = values.unseen
  ? [values.unseen]
  : (await readdir(labelledDir))
      .filter((file) => file.endsWith(".txt"))
      .sort()
      .map((name) => join(labelledDir, name));
const partOfUnit = values.unseen ? (): Part => "held-out" : partOf;
const bySource = new Map<string, ResolvedStream[]>();
for (const path of files) {
  const file = await readLabelledFile(path);
  const key = file.source === "fresh" ? `fresh ${file.location}` : file.source;
  bySource.set(key, [...(bySource.get(key) ?? []), ...(await resolveStreams(file, dataDir))]);
}

const pct = (value: number) => value.toFixed(3);
let falseCurrent = 0;
for (const [source, streams] of bySource) {
  const scores = await replayLabelled(
    streams,
    extractByRules,
    (fact, current) => contradictedBy(fact, current).map(({ held, reason }) => ({ key: held.key, reason })),
    partOfUnit,
  );
  const score = scores[part] as PartScore;
  const summary = summarise(score);
  falseCurrent += summary.falseCurrent;
  const turns = streams.reduce((total, stream) => total + stream.turns.length, 0);
  console.log(`\n${source} (${part} part; ${streams.length} streams, ${turns} turns in all)`);
  console.log(
    `  precision ${pct(summary.precision)}  recall ${pct(summary.recall)}  false current ${summary.falseCurrent}  closures ${score.closed}/${score.closures} (${score.closuresMoot} of facts never written)  true facts lost ${score.lostTrue}`,
  );
  console.log(
    `  ${"kind".padEnd(13)} ${"written".padStart(7)} ${"prec".padStart(6)} ${"labels".padStart(6)} ${"recall".padStart(6)} ${"false".padStart(5)}`,
  );
  for (const row of summary.byKind)
    console.log(
      `  ${row.kind.padEnd(13)} ${String(row.written).padStart(7)} ${pct(row.precision).padStart(6)} ${String(row.labels).padStart(6)} ${pct(row.recall).padStart(6)} ${String(row.falseCurrent).padStart(5)}`,
    );
  if (values.failures) for (const failure of score.failures) console.log(`    ${failure}`);
}

function report(label: string, cases: readonly FactCase[]): void {
  const score = scoreFactCases(cases, extractByRules);
  console.log(
    `\n${label}: ${cases.length} cases; precision ${pct(score.precision)} recall ${pct(score.recall)} wrong supersedes ${score.wrongSupersedes}`,
  );
  if (values.failures) for (const failure of score.failures) console.log(`    ${failure}`);
}
if (!values.unseen) {
  report("older evaluation set (src/eval/facts/cases.ts)", FACT_CASES);
  report("older held-out set (src/eval/facts/held-out-cases.ts)", HELD_OUT_FACT_CASES);
}
if (part === "held-out" && falseCurrent > 0) process.exitCode = 1;
