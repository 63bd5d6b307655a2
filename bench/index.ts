import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startRuntime } from "../functions/node-runtime.js";
import { parseEnv } from "../src/config/env.js";
import { benchAppend } from "./append.js";
import { benchRetrieval } from "./retrieval.js";
import { printTable } from "./stats.js";

/**
 * `npm run bench [-- --iterations 2000]`: benchmarks on the embedded default (PGlite on a fresh
 * data directory, pipeline running), each next to its floor measured in the same run. Absolute
 * numbers vary by machine; the ratio is what the targets are stated in.
 */
const { values } = parseArgs({ options: { iterations: { type: "string", default: "1000" }, "retrieval-iterations": { type: "string", default: "30" }, scale: { type: "boolean", default: false } } });
const iterations = Number(values.iterations);
const dataDir = await mkdtemp(join(tmpdir(), "memory-bench-"));
const runtime = await startRuntime(parseEnv({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "error" }));
try {
  console.log(`embedded default: PGlite (${dataDir}), ${iterations} iterations, node ${process.version}\n`);
  const append = await benchAppend(runtime, iterations);
  printTable([append.raw, ...append.rows], append.raw);
  const ratio = (append.rows[0]?.p50 ?? Number.NaN) / append.raw.p50;
  console.log(`\nappend p50 / raw insert p50 = ${ratio.toFixed(2)} (target ≤ 3)`);
  console.log(JSON.stringify({ bench: "append", iterations, raw: append.raw, rows: append.rows, ratio }));

  // Retrieval at growing sizes; --scale adds 100,000 memories for one user.
  const sizes = values.scale ? [1_000, 10_000, 100_000] : [1_000, 10_000];
  for (const size of sizes) {
    const retrieval = await benchRetrieval(runtime, size, Number(values["retrieval-iterations"]));
    console.log("");
    printTable([retrieval.raw, ...retrieval.rows], retrieval.raw);
    console.log(JSON.stringify({ bench: "retrieval", size, raw: retrieval.raw, rows: retrieval.rows }));
  }
} finally {
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
}
