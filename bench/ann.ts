import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Runtime } from "../functions/node-runtime.js";
import { databaseOptions } from "../functions/settings.js";
import type { Env } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { queryRows } from "../src/db/database.js";
import { toVectorLiteral } from "../src/db/vector.js";
import { annIndexName, ensureAnnIndex } from "../src/memory/recall/ann-index.js";
import { reconcileUserAnnIndexes } from "../src/memory/recall/user-ann-indexes.js";
import { clusteredVector, seedMemories } from "./retrieval.js";
import { time } from "./stats.js";

/** pgvector's default, and what recall sets (the candidate pool) for a search of 10 (120) and a context window of 2,000 tokens (~400). */
const EF_SEARCH = [40, 120, 400];
/** Enough that one query's misses move the mean by at most 0.01 (with 20, draws of the same index ranged 0.90-0.98). */
const QUERIES = 100;
/** ann-benchmarks' tolerance: a result as near as the exact 10th (within this cosine distance) counts as found. */
const TIE_TOLERANCE = 1e-3;

/** recall@10 at one `hnsw.ef_search`: by id, and counting a tie with the exact 10th as found. */
export interface RecallAt10 {
  ids: number;
  withinTies: number;
}

export interface AnnReport {
  memories: number;
  /** Building the HNSW index over what is there, concurrently. */
  buildMs: number;
  /** Inserting 5,000 embedded memories without the index, then with it. */
  insertMs: { without: number; with: number };
  /** Mean share of the exact top-10 that the indexed search returns, by `hnsw.ef_search`. */
  recallAt10: Record<number, RecallAt10>;
}

/**
 * The HNSW index on a real Postgres, for the user `bench-<count>` that the retrieval benchmark
 * seeded: build time, the insert cost it adds, and recall@10 of the indexed search against an
 * exact scan of the same user's vectors.
 */
export async function benchAnn(runtime: Runtime, env: Env, count: number): Promise<AnnReport> {
  const db = runtime.database.db;
  const { model, dimensions } = runtime.providers.embedder;
  const name = annIndexName({ model, dimensions });
  await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
  const without = await time(() => seedMemories(runtime, "bench-ann-insert", 5_000, model));
  const buildMs = await buildAnnIndexAsService(runtime, env);
  const withIndex = await time(() => seedMemories(runtime, "bench-ann-insert", 5_000, model));

  return {
    memories: count,
    buildMs,
    insertMs: { without, with: withIndex },
    recallAt10: await indexRecallAt10(runtime, [{ userId: `bench-${count}` }]),
  };
}

/** A user whose memories `seedMemories` made, with the phase it seeded them with. */
export interface SeededUser {
  userId: string;
  phase?: number;
}

/**
 * Mean share of the exact top-10 (a scan with the index off) that the indexed search returns, by
 * `hnsw.ef_search`, over `QUERIES` queries spread over `users`, each from its user's family of
 * vectors (their phase): a query unlike all of a user's memories finds them all nearly
 * equidistant, and which ten of those ties an index returns says nothing about it. Reported by id,
 * and as ann-benchmarks counts it: a result within `TIE_TOLERANCE` of the exact 10th distance is
 * found, since near-duplicate memories tie and either of two tied ids is as good an answer.
 */
export async function indexRecallAt10(runtime: Runtime, users: SeededUser[]): Promise<Record<number, RecallAt10>> {
  const db = runtime.database.db;
  const { model, dimensions } = runtime.providers.embedder;
  const sums = new Map<number, RecallAt10>(EF_SEARCH.map((efSearch) => [efSearch, { ids: 0, withinTies: 0 }]));
  for (let q = 0; q < QUERIES; q++) {
    const { userId, phase = 0 } = users[q % users.length] as SeededUser;
    // Queries from the same family as the data (a topic, subtopic and detail of its own, more noise).
    const values = Array.from({ length: dimensions }, (_, d) =>
      clusteredVector(1 + (q % 20), 21 + ((q * 7) % 20), 41 + ((q * 31) % 397), d + 1, (Math.random() - 0.5) * 0.3, phase),
    );
    const vector = toVectorLiteral(values);
    const cast = sql.raw(`halfvec(${dimensions})`);
    const nearest = (settings: string[]) =>
      db.transaction(async (tx) => {
        for (const setting of settings) await tx.execute(sql.raw(`SET LOCAL ${setting}`));
        return queryRows<{ id: string; distance: number }>(
          tx,
          sql`SELECT id, (embedding::${cast} <=> ${vector}::${cast})::float8 AS distance FROM memories
               WHERE app_id = 'default' AND user_id = ${userId} AND embedding_model = ${model}
               ORDER BY embedding::${cast} <=> ${vector}::${cast} LIMIT 10`,
        );
      });
    const exact = await nearest(["enable_indexscan = off"]);
    const tenth = exact.at(-1)?.distance ?? Number.POSITIVE_INFINITY;
    const expected = Math.max(1, exact.length);
    for (const [efSearch, sum] of sums) {
      const approximate = await nearest(["hnsw.iterative_scan = relaxed_order", `hnsw.ef_search = ${efSearch}`]);
      const found = new Set(approximate.map((row) => row.id));
      sum.ids += exact.filter((row) => found.has(row.id)).length / expected;
      sum.withinTies += approximate.filter((row) => row.distance <= tenth + TIE_TOLERANCE).length / expected;
    }
  }
  return Object.fromEntries(
    [...sums].map(([efSearch, sum]) => [efSearch, { ids: sum.ids / QUERIES, withinTies: sum.withinTies / QUERIES }]),
  );
}

/** "0.951 (0.970 counting ties) at ef_search 40, …": recall@10 as the benchmark prints it. */
export function formatRecallAt10(recall: Record<number, RecallAt10>): string {
  return Object.entries(recall)
    .map(([efSearch, share]) => `${share.ids.toFixed(3)} (${share.withinTies.toFixed(3)} counting ties) at ef_search ${efSearch}`)
    .join(", ");
}

/** Builds the configured model's HNSW index as the service does: a connection of its own, the configured build memory. */
export async function buildAnnIndexAsService(runtime: Runtime, env: Env): Promise<number> {
  const { model, dimensions } = runtime.providers.embedder;
  const builder = await connectDatabase({ ...databaseOptions(env), poolMax: 1 });
  return time(() => ensureAnnIndex(builder.db, { model, dimensions }, { memory: env.ANN_INDEX_BUILD_MEMORY })).finally(() =>
    builder.close(),
  );
}

/** Builds the largest users' own indexes as the service does (its policy, a connection of its own); returns the time and what was built. */
export async function buildUserAnnIndexesAsService(runtime: Runtime, env: Env): Promise<{ ms: number; built: number }> {
  const { model, dimensions } = runtime.providers.embedder;
  const builder = await connectDatabase({ ...databaseOptions(env), poolMax: 1 });
  let built = 0;
  const ms = await time(async () => {
    const policy = { minMemories: env.ANN_USER_INDEX_MIN_MEMORIES, maxIndexes: env.ANN_USER_INDEX_MAX };
    built = (await reconcileUserAnnIndexes(builder.db, { model, dimensions }, policy, { memory: env.ANN_INDEX_BUILD_MEMORY })).built.length;
  }).finally(() => builder.close());
  return { ms, built };
}

/** A database of its own on the server at `url`, for one benchmark run. */
export async function createScratchDatabase(url: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `mnemo_bench_${randomBytes(4).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return { name, url: scratch.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
