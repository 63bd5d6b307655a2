import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startRuntime } from "../functions/node-runtime.js";
import { databaseOptions } from "../functions/settings.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { benchAnn, createScratchDatabase, formatRecallAt10 } from "./ann.js";
import { benchAppend } from "./append.js";
import { benchBulkImport, printBulkImport } from "./bulk-import.js";
import { benchColdStart } from "./cold-start.js";
import { benchEngines, printEngines } from "./engines.js";
import { generateHistory } from "./generated-history.js";
import { benchLoad, printLoad } from "./load.js";
import { benchMaintenance } from "./maintenance.js";
import { benchManyUsers } from "./many-users.js";
import { benchRetrieval } from "./retrieval.js";
import { printTable, type Summary } from "./stats.js";
import { benchTracing, type TracingReport } from "./tracing.js";
import { benchWritePath } from "./write-path.js";

/**
 * `npm run bench -- --load [--clients 50] [--seconds 60] [--postgres URL]`: only the load test (mixed
 * append / context / search from many clients), on PGlite and, with `--postgres`, on that server too.
 *
 * `npm run bench -- --import [--postgres URL]`: only the bulk import (a generated history of 500 turns in 50
 * sessions, digested through the pipeline), on PGlite and, with `--postgres`, on that server too.
 *
 * `npm run bench -- --many-users --postgres URL [--users 1000] [--per-user 1000] [--large-user 100000]`:
 * only the production-shape benchmark (many users under one HNSW index, one large user), on that server.
 *
 * `npm run bench -- --engines [--sizes 10000,100000] [--retrieval-iterations 30]`: only the recall engines of the
 * embedded database side by side (resident copy, HNSW inside PGlite, SQL), through the one engine contract.
 * `npm run bench -- --tracing [--postgres URL]`: only the cost of tracing on the context path (10K
 * memories, context windows without and with the tracing SDK in alternating rounds).
 * `npm run bench -- --write-path [--postgres URL] [--size 100000] [--entities 2000]`: only the vector
 * searches of one fact write (duplicate check before and after it used the HNSW expression, entity
 * resolution's), next to the fact's content-hash lookup, on PGlite and with `--postgres` on that server.
 *
 * `npm run bench [-- --iterations 2000]`: benchmarks on the embedded default (PGlite on a fresh
 * data directory, pipeline running), each next to its floor measured in the same run. Absolute
 * numbers vary by machine; the ratio is what the targets are stated in.
 */
const { values } = parseArgs({
  options: {
    iterations: { type: "string", default: "1000" },
    "retrieval-iterations": { type: "string", default: "30" },
    scale: { type: "boolean", default: false },
    /** A real Postgres (with pgvector) to run on instead of the embedded PGlite; its schema is migrated. */
    postgres: { type: "string" },
    /** Only the load test: mixed traffic from many clients, on PGlite and (with --postgres) on Postgres. */
    load: { type: "boolean", default: false },
    clients: { type: "string", default: "50" },
    seconds: { type: "string", default: "60" },
    /** Only the bulk import of a 500-turn history, on PGlite and (with --postgres) on Postgres. */
    import: { type: "boolean", default: false },
    /** Only the production shape: many users under one HNSW index plus one large user (needs --postgres). */
    "many-users": { type: "boolean", default: false },
    users: { type: "string", default: "1000" },
    "per-user": { type: "string", default: "1000" },
    "large-user": { type: "string", default: "100000" },
    /** Only the recall engines of the embedded database, side by side, at these sizes. */
    engines: { type: "boolean", default: false },
    sizes: { type: "string", default: "10000,100000" },
    /** Only the cost of tracing on the context path. */
    tracing: { type: "boolean", default: false },
    /** Only the vector searches of one fact write at `--size` memories of one user, on PGlite and (with --postgres) on Postgres. */
    "write-path": { type: "boolean", default: false },
    size: { type: "string", default: "100000" },
    entities: { type: "string", default: "2000" },
  },
});
const iterations = Number(values.iterations);

/**
 * The service on a fresh database: an embedded PGlite directory, or with `postgresUrl` a scratch
 * database of its own on that server, migrated and dropped at the end. The rate limit is off: the
 * benchmark sends thousands of requests a minute from one caller on purpose.
 */
async function openBenchRuntime(postgresUrl?: string, overrides: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), "memory-bench-"));
  const scratch = postgresUrl ? await createScratchDatabase(postgresUrl) : undefined;
  const benchEnv = parseEnv({
    ...process.env,
    DATA_DIR: dataDir,
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    LOG_LEVEL: "error",
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "0",
    ...overrides,
  });
  if (scratch) {
    const handle = await connectDatabase(databaseOptions(benchEnv));
    await migrateDatabase(handle);
    await handle.close();
  }
  const runtime = await startRuntime(benchEnv);
  return {
    runtime,
    env: benchEnv,
    scratch,
    label: scratch ? `real Postgres (${scratch.name})` : `embedded default: PGlite (${dataDir})`,
    async close() {
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

if (values.load) {
  const targets = [undefined, ...(values.postgres ? [values.postgres] : [])];
  for (const postgresUrl of targets) {
    const bench = await openBenchRuntime(postgresUrl);
    try {
      const report = await benchLoad(bench.runtime, { clients: Number(values.clients), seconds: Number(values.seconds) });
      printLoad(bench.label, report);
      console.log(JSON.stringify({ bench: "load", database: postgresUrl ? "postgres" : "pglite", ...report }));
    } finally {
      await bench.close();
    }
  }
  process.exit(0);
}

/** A history of 500 turns in 50 sessions imported and digested, beside the embedder alone on its turns. */
async function runBulkImport(postgresUrl?: string): Promise<void> {
  const bench = await openBenchRuntime(postgresUrl);
  try {
    const report = await benchBulkImport(
      bench.runtime,
      generateHistory({ sessions: 50, turnsPerSession: 10, seed: 7 }),
      "bulk-import-user",
    );
    printBulkImport(bench.label, report);
    console.log(JSON.stringify({ bench: "bulk-import", database: postgresUrl ? "postgres" : "pglite", ...report }));
  } finally {
    await bench.close();
  }
}

if (values.import) {
  for (const postgresUrl of [undefined, ...(values.postgres ? [values.postgres] : [])]) await runBulkImport(postgresUrl);
  process.exit(0);
}

if (values.engines) {
  const bench = await openBenchRuntime();
  try {
    for (const size of values.sizes.split(",").map(Number)) {
      const report = await benchEngines(bench.runtime, size, Number(values["retrieval-iterations"]));
      printEngines(report);
      console.log(JSON.stringify({ bench: "engines", ...report }));
    }
  } finally {
    await bench.close();
  }
  process.exit(0);
}

function printTracing(report: TracingReport): void {
  console.log("");
  printTable([report.untraced, report.traced], report.untraced);
  console.log(
    `tracing on the context path (${report.memories} memories, ${report.spansPerRequest.toFixed(0)} spans per request): traced p50 / untraced p50 = ${report.ratio.toFixed(2)}`,
  );
  console.log(JSON.stringify({ bench: "tracing", ...report }));
}

if (values.tracing) {
  const bench = await openBenchRuntime(values.postgres);
  try {
    console.log(bench.label);
    printTracing(await benchTracing(bench.runtime, 10_000));
  } finally {
    await bench.close();
  }
  process.exit(0);
}

if (values["write-path"]) {
  const targets = [undefined, ...(values.postgres ? [values.postgres] : [])];
  for (const postgresUrl of targets) {
    // The user's own index is built by the benchmark, not by the service's upkeep mid-seeding.
    const bench = await openBenchRuntime(postgresUrl, { ANN_USER_INDEX_INTERVAL: "24h" });
    try {
      const options = { size: Number(values.size), entities: Number(values.entities), probes: Number(values["retrieval-iterations"]) + 3 };
      const report = await benchWritePath(bench.runtime, bench.env, options);
      console.log(
        `\n${bench.label}: one user, ${report.memories} memories (${report.facts} facts), ${report.entities} entities; vector indexes: ${report.indexes.join(", ") || "none"}`,
      );
      printTable(report.rows, report.rows[0] as Summary);
      console.log(
        `same nearest fact before and after: restatements ${report.agreement.sameNearest.restated}, facts near none ${report.agreement.sameNearest.nearNone}; same duplicate decision: ${report.agreement.sameDecision}/${report.agreement.probes}; plans read: before ${report.plans.before.join(", ")}; now ${report.plans.after.join(", ")}; entities ${report.plans.entities.join(", ")}`,
      );
      console.log(JSON.stringify({ bench: "write-path", database: postgresUrl ? "postgres" : "pglite", ...report }));
    } finally {
      await bench.close();
    }
  }
  process.exit(0);
}

if (values["many-users"]) {
  if (!values.postgres) throw new Error("--many-users needs --postgres URL: the HNSW index exists only on a real Postgres");
  // The large user's own index is built and timed by the benchmark, not by the service's periodic upkeep mid-seeding.
  const bench = await openBenchRuntime(values.postgres, { ANN_USER_INDEX_INTERVAL: "24h" });
  try {
    const options = {
      users: Number(values.users),
      perUser: Number(values["per-user"]),
      largeUser: Number(values["large-user"]),
      iterations: Number(values["retrieval-iterations"]),
    };
    const report = await benchManyUsers(bench.runtime, bench.env, options);
    const total = options.users * options.perUser + options.largeUser;
    console.log(
      `${bench.label}: ${total} memories (${options.users} users × ${options.perUser} + one with ${options.largeUser}); seeded in ${(report.seedMs / 1000).toFixed(0)} s, HNSW index built in ${(report.buildMs / 1000).toFixed(1)} s (maintenance_work_mem ${bench.env.ANN_INDEX_BUILD_MEMORY}), ${(report.indexBytes / 2 ** 20).toFixed(0)} MiB\n`,
    );
    console.log(
      `per-user indexes (${bench.env.ANN_USER_INDEX_MIN_MEMORIES}+ memories; vectors and words): ${report.userIndexes.built} users' built in ${(report.userIndexes.ms / 1000).toFixed(1)} s, ${(report.userIndexes.bytes / 2 ** 20).toFixed(0)} MiB; inserting 2,000 memories: ${report.insertMs.many.toFixed(0)} ms for one of the many users, ${report.insertMs.large.toFixed(0)} ms for the large user (both vector indexes and their own word index)\n`,
    );
    for (const { raw, rows } of [report.many, report.large]) {
      printTable([raw, ...rows], raw);
      console.log("");
    }
    console.log(
      `recall@10 against an exact scan (target ≥ 0.95): random users ${formatRecallAt10(report.recallAt10.many)}; the large user ${formatRecallAt10(report.recallAt10.large)}`,
    );
    console.log(JSON.stringify({ bench: "many-users", ...report }));
  } finally {
    await bench.close();
  }
  process.exit(0);
}

// Cold start first, while nothing else in this process competes for the cores.
const coldDir = await mkdtemp(join(tmpdir(), "memory-cold-"));
try {
  const cold = await benchColdStart(coldDir);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `cold start of the built service to a served /healthz: restart ${seconds(cold.restartMs)} (target ≤ 3 s), first boot on an empty data directory ${seconds(cold.firstBootMs)}; floor: a bare node:http server ${seconds(cold.floorMs)}, restart / floor = ${(cold.restartMs / cold.floorMs).toFixed(1)}`,
  );
  console.log(
    `first context request after the restart ${cold.firstContextMs.toFixed(0)} ms (loads the embedding model); RSS then ${cold.rssMiB.toFixed(0)} MiB; idle after it: ${(cold.idleCpuShare * 100).toFixed(1)}% of a core\n`,
  );
  console.log(JSON.stringify({ bench: "cold-start", ...cold }));
} finally {
  await rm(coldDir, { recursive: true, force: true });
}

// A whole history digested, on a service of its own, before the rest fills the database.
await runBulkImport(values.postgres);

const { runtime, env, scratch, label, close } = await openBenchRuntime(values.postgres);
try {
  console.log(`${label}, ${iterations} iterations, node ${process.version}\n`);
  const append = await benchAppend(runtime, iterations);
  printTable([append.raw, ...append.rows], append.raw);
  const ratio = (append.rows[0]?.p50 ?? Number.NaN) / append.raw.p50;
  console.log(`\nappend p50 / raw insert p50 = ${ratio.toFixed(2)} (target ≤ 3)`);
  console.log(JSON.stringify({ bench: "append", iterations, raw: append.raw, rows: append.rows, ratio }));

  // The appended messages are still being replayed and embedded: let that finish, so the retrieval
  // numbers are not measured against a busy pipeline.
  await waitForSettled(runtime.app, "bench-user", { intervalMs: 200 });

  // Retrieval at growing sizes; --scale adds 100,000 memories for one user.
  const sizes = values.scale ? [1_000, 10_000, 100_000] : [1_000, 10_000];
  for (const size of sizes) {
    const retrieval = await benchRetrieval(runtime, size, Number(values["retrieval-iterations"]));
    console.log("");
    printTable([retrieval.raw, ...retrieval.rows], retrieval.raw);
    const { throughput } = retrieval;
    console.log(
      `search throughput, ${size} memories, ${throughput.clients} clients: ${throughput.searchPerSecond.toFixed(0)}/s (target ≥ 100 at 100K); ceiling: the embedder alone, same clients, ${throughput.embedderPerSecond.toFixed(0)}/s`,
    );
    console.log(JSON.stringify({ bench: "retrieval", size, raw: retrieval.raw, rows: retrieval.rows, throughput }));
  }

  printTracing(await benchTracing(runtime, 10_000));

  // Maintenance (decay, backfill, append under their load) on the largest size.
  const maintenance = await benchMaintenance(runtime, sizes.at(-1) as number);
  const { decay, backfill } = maintenance;
  console.log(
    `\ndecay pass over ${decay.memories} memories (${decay.forgotten} forgotten): direct ${(decay.directMs / 1000).toFixed(2)} s, as the pipeline function ${(decay.pipelineMs / 1000).toFixed(2)} s (target ≤ 5 s); floor: one scan computing every retention ${(decay.rawMs / 1000).toFixed(2)} s`,
  );
  console.log(
    `embedding backfill: ${backfill.perSecond.toFixed(0)} memories/s through the pipeline (target ≥ 100); floor: the embedder alone ${backfill.embedderOnlyPerSecond.toFixed(0)}/s`,
  );
  printTable([maintenance.appendUnderLoad.raw, ...maintenance.appendUnderLoad.rows], maintenance.appendUnderLoad.raw);
  const underLoad = (maintenance.appendUnderLoad.rows[0]?.p50 ?? Number.NaN) / maintenance.appendUnderLoad.raw.p50;
  console.log(
    `append p50 during backfill + decay / raw insert p50 in the same window = ${underLoad.toFixed(2)} (target ≤ 3); / idle raw insert p50 = ${((maintenance.appendUnderLoad.rows[0]?.p50 ?? Number.NaN) / append.raw.p50).toFixed(2)}`,
  );
  console.log(JSON.stringify({ bench: "maintenance", ...maintenance, ratioUnderLoad: underLoad }));
  if (scratch) {
    const ann = await benchAnn(runtime, env, sizes.at(-1) as number);
    const recall = formatRecallAt10(ann.recallAt10);
    console.log(
      `\nHNSW index (${ann.memories} memories for one user): build ${(ann.buildMs / 1000).toFixed(1)} s (maintenance_work_mem ${env.ANN_INDEX_BUILD_MEMORY}); recall@10 against an exact scan ${recall} (target ≥ 0.95); inserting 5,000 embedded memories ${(ann.insertMs.with / 1000).toFixed(2)} s with the index, ${(ann.insertMs.without / 1000).toFixed(2)} s without (floor)`,
    );
    console.log(JSON.stringify({ bench: "ann", ...ann }));
  }
} finally {
  await close();
}
