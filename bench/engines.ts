import { sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import { queryRows } from "../src/db/database.js";
import { toVectorLiteral } from "../src/db/vector.js";
import { annIndexName, HNSW_BUILD } from "../src/memory/recall/ann-index.js";
import type { QueryVector, RecallIndex, RecallRequest } from "../src/memory/recall/engines/recall-index.js";
import { residentIndexes } from "../src/memory/recall/engines/resident/resident-index.js";
import { sqlBinaryIndex } from "../src/memory/recall/engines/sql-binary.js";
import { CorpusStatisticsCache } from "../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { sqlBm25Index } from "../src/memory/recall/engines/sql-bm25/sql-bm25-index.js";
import { queryLexemes } from "../src/memory/recall/engines/sql-bm25/text-ranking.js";
import { sqlHnswIndex } from "../src/memory/recall/engines/sql-hnsw.js";
import { m, visibleAt } from "../src/memory/visibility.js";
import { clusteredVector, seedMemories, TOPICS } from "./retrieval.js";
import { type Summary, summarize, time } from "./stats.js";

/** Candidate pools a channel ranks: a search of 10 (limit 40 → 120) and a context window of 2,000 tokens (limit 100 → 300). */
const POOLS = [120, 300];
/** Embedded memories inserted to measure what an HNSW index adds to each write. */
const INSERTS = 200;

export interface EngineRow {
  channel: "vector" | "text";
  engine: string;
  pool: number;
  latency: Summary;
  /** Vector channel: mean share of the exact top-10 among the first ten hits. */
  recallAt10?: number;
}

export interface EnginesReport {
  memories: number;
  /** Building pgvector's HNSW index over the user's vectors inside PGlite, as the service would on a server. */
  hnswBuildMs: number;
  /** Inserting `INSERTS` embedded memories without, then with, that index. */
  insertMs: { without: number; with: number; count: number };
  /** Loading the user's resident copy (its first full read of the change log). */
  residentLoadMs: number;
  rows: EngineRow[];
}

/**
 * The recall engines of the embedded database side by side, each through the one engine contract
 * (`RecallIndex.rank`), on one user of `size` memories: for the vector channel the resident copy,
 * pgvector's HNSW index inside PGlite, and the binary-quantised SQL scan; for the text channel the
 * resident copy and BM25 in SQL. Latency per channel and pool, recall@10 of the vector engines
 * against an exact scan, the index's build time and the cost it adds to every embedded insert.
 */
export async function benchEngines(runtime: Runtime, size: number, iterations: number): Promise<EnginesReport> {
  const resident = runtime.residentMemories;
  if (!resident) throw new Error("--engines needs the embedded database with ANN_INDEX=auto (the resident engine)");
  const db = runtime.database.db;
  const { model, dimensions } = runtime.providers.embedder;
  const scope = { appId: "default", userId: `engines-${size}` };
  await seedMemories(runtime, scope.userId, size, model);
  const now = new Date();
  const request = (pool: number, vector: QueryVector | undefined, text: string): RecallRequest => {
    let lexemes: Promise<string[]> | undefined;
    return {
      db,
      ...scope,
      now,
      text,
      visible: visibleAt(m, scope, { now }),
      pool,
      vector: Promise.resolve(vector),
      lexemes: () => {
        lexemes ??= queryLexemes(db, text);
        return lexemes;
      },
    };
  };
  const { vectors: residentVectors, words: residentWords } = residentIndexes(resident);
  const residentLoadMs = await time(async () => {
    await residentWords.rank(request(10, undefined, "load"));
    await resident.loaded(scope);
  });

  // Queries of the data's own family (topic, subtopic, detail, more noise), and their exact top-10.
  const queries = Array.from({ length: iterations }, (_, q) => {
    const values = Array.from({ length: dimensions }, (_, d) =>
      clusteredVector(1 + (q % 20), 21 + ((q * 7) % 20), 41 + ((q * 31) % 397), d + 1, (Math.random() - 0.5) * 0.3),
    );
    const text = `What did we say about ${TOPICS[q % TOPICS.length]} and ${TOPICS[(q * 3 + 1) % TOPICS.length]}?`;
    return { values, text };
  });
  const exact = await Promise.all(
    queries.map(async ({ values }) =>
      (
        await queryRows<{ id: string }>(
          db,
          sql`SELECT id FROM memories WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND embedding_model = ${model}
               ORDER BY embedding <=> ${toVectorLiteral(values)}::halfvec LIMIT 10`,
        )
      ).map((row) => row.id),
    ),
  );

  const rows: EngineRow[] = [];
  const measure = async (channel: EngineRow["channel"], engine: RecallIndex, pool: number, indexed: boolean) => {
    const samples: number[] = [];
    let found = 0;
    for (const [q, query] of queries.entries()) {
      const vector = { values: query.values, model, ...(indexed ? { annDimensions: dimensions } : {}) };
      let ranking: Awaited<ReturnType<RecallIndex["rank"]>>;
      samples.push(await time(async () => (ranking = await engine.rank(request(pool, vector, query.text)))));
      if (!ranking) throw new Error(`${engine.name} did not answer`);
      const expected = new Set(exact[q]);
      found += ranking.hits.slice(0, 10).filter((hit) => expected.has(hit.id)).length / Math.max(1, expected.size);
    }
    rows.push({
      channel,
      engine: engine.name,
      pool,
      latency: summarize(`${channel}: ${engine.name}, pool ${pool}`, samples),
      ...(channel === "vector" ? { recallAt10: found / queries.length } : {}),
    });
  };
  const statistics = new CorpusStatisticsCache();
  for (const pool of POOLS) {
    await measure("vector", residentVectors, pool, false);
    await measure("vector", sqlBinaryIndex, pool, false);
    await measure("text", residentWords, pool, false);
    await measure("text", sqlBm25Index({ statistics }), pool, false);
  }

  // pgvector's HNSW index inside PGlite, as a server builds it (same expression, predicate and parameters).
  const insertUser = `engines-${size}-inserts`;
  const without = await time(() => seedMemories(runtime, insertUser, INSERTS, model, { analyze: false }));
  const index = annIndexName({ model, dimensions });
  const hnswBuildMs = await time(() =>
    db.execute(
      sql.raw(
        `CREATE INDEX IF NOT EXISTS "${index}" ON memories USING hnsw ((embedding::halfvec(${dimensions})) halfvec_cosine_ops) WITH (m = ${HNSW_BUILD.m}, ef_construction = ${HNSW_BUILD.efConstruction}) WHERE embedding_model = '${model.replaceAll("'", "''")}'`,
      ),
    ),
  );
  try {
    const withIndex = await time(() => seedMemories(runtime, insertUser, INSERTS, model, { analyze: false }));
    for (const pool of POOLS) await measure("vector", sqlHnswIndex, pool, true);
    return { memories: size, hnswBuildMs, insertMs: { without, with: withIndex, count: INSERTS }, residentLoadMs, rows };
  } finally {
    await db.execute(sql.raw(`DROP INDEX IF EXISTS "${index}"`));
  }
}

/** The table, then per channel and pool the margin of the resident engine over the fastest other engine. */
export function printEngines(report: EnginesReport): void {
  const format = (value: number) => value.toFixed(2).padStart(9);
  console.log(`\nrecall engines on the embedded database, one user of ${report.memories} memories`);
  console.log(`${"channel: engine, pool".padEnd(40)} ${"p50 ms".padStart(9)} ${"p95 ms".padStart(9)} ${"recall@10".padStart(10)}`);
  for (const row of report.rows) {
    const recall = row.recallAt10 === undefined ? "" : row.recallAt10.toFixed(3);
    console.log(`${row.latency.name.padEnd(40)} ${format(row.latency.p50)} ${format(row.latency.p95)} ${recall.padStart(10)}`);
  }
  for (const channel of ["vector", "text"] as const) {
    for (const pool of POOLS) {
      const of = report.rows.filter((row) => row.channel === channel && row.pool === pool);
      const resident = of.find((row) => row.engine.startsWith("resident"));
      const others = of.filter((row) => row !== resident).sort((a, b) => a.latency.p50 - b.latency.p50);
      const best = others[0];
      if (!resident || !best) continue;
      const margin = best.latency.p50 / resident.latency.p50;
      console.log(
        `${channel} channel, pool ${pool}: resident p50 ${resident.latency.p50.toFixed(2)} ms, fastest other ${best.engine} ${best.latency.p50.toFixed(2)} ms: the resident engine ${margin >= 1 ? "wins" : "loses"} by ×${(margin >= 1 ? margin : 1 / margin).toFixed(1)}`,
      );
    }
  }
  const perInsert = (ms: number) => (ms / report.insertMs.count).toFixed(2);
  console.log(
    `HNSW inside PGlite: build ${(report.hnswBuildMs / 1000).toFixed(1)} s; an embedded insert ${perInsert(report.insertMs.with)} ms with the index, ${perInsert(report.insertMs.without)} ms without (×${(report.insertMs.with / report.insertMs.without).toFixed(1)}); the resident copy loaded in ${(report.residentLoadMs / 1000).toFixed(1)} s`,
  );
}
