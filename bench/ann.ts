import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Runtime } from "../functions/node-runtime.js";
import type { Env } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { queryRows } from "../src/db/database.js";
import { toVectorLiteral } from "../src/db/vector.js";
import { annIndexName, ensureAnnIndex } from "../src/memory/recall/ann-index.js";
import { reconcileUserAnnIndexes } from "../src/memory/recall/user-ann-indexes.js";
import { clusteredVector, seedMemories } from "./retrieval.js";
import { time } from "./stats.js";

/** pgvector's default, and what recall sets for a context window's candidate pool (2× the pool). */
const EF_SEARCH = [40, 64, 200];
const QUERIES = 20;

export interface AnnReport {
  memories: number;
  /** Building the HNSW index over what is there, concurrently. */
  buildMs: number;
  /** Inserting 5,000 embedded memories without the index, then with it. */
  insertMs: { without: number; with: number };
  /** Mean share of the exact top-10 that the indexed search returns, over 20 queries, by `hnsw.ef_search`. */
  recallAt10: Record<number, number>;
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
 * `hnsw.ef_search`, over 20 queries spread over `users`, each from its user's family of vectors
 * (their phase): a query unlike all of a user's memories finds them all nearly equidistant, and
 * which ten of those ties an index returns says nothing about it.
 */
export async function indexRecallAt10(runtime: Runtime, users: SeededUser[]): Promise<Record<number, number>> {
  const db = runtime.database.db;
  const { model, dimensions } = runtime.providers.embedder;
  // Queries from the same family as the data (a topic, subtopic and detail of its own, more noise).
  const overlap: Record<number, number> = {};
  for (let q = 0; q < QUERIES; q++) {
    const { userId, phase = 0 } = users[q % users.length] as SeededUser;
    const values = Array.from({ length: dimensions }, (_, d) =>
      clusteredVector(1 + (q % 20), 21 + ((q * 7) % 20), 41 + ((q * 31) % 397), d + 1, (Math.random() - 0.5) * 0.3, phase),
    );
    const vector = toVectorLiteral(values);
    const cast = `halfvec(${dimensions})`;
    const nearest = (settings: string[]) =>
      db.transaction(async (tx) => {
        for (const setting of settings) await tx.execute(sql.raw(`SET LOCAL ${setting}`));
        return queryRows<{ id: string }>(
          tx,
          sql`SELECT id FROM memories WHERE app_id = 'default' AND user_id = ${userId} AND embedding_model = ${model}
               ORDER BY embedding::${sql.raw(cast)} <=> ${vector}::${sql.raw(cast)} LIMIT 10`,
        );
      });
    const exact = await nearest(["enable_indexscan = off"]);
    for (const efSearch of EF_SEARCH) {
      const approximate = await nearest(["hnsw.iterative_scan = relaxed_order", `hnsw.ef_search = ${efSearch}`]);
      const found = new Set(approximate.map((row) => row.id));
      overlap[efSearch] = (overlap[efSearch] ?? 0) + exact.filter((row) => found.has(row.id)).length / Math.max(1, exact.length);
    }
  }
  return Object.fromEntries(EF_SEARCH.map((efSearch) => [efSearch, (overlap[efSearch] ?? 0) / QUERIES]));
}

/** Builds the configured model's HNSW index as the service does: a connection of its own, the configured build memory. */
export async function buildAnnIndexAsService(runtime: Runtime, env: Env): Promise<number> {
  const { model, dimensions } = runtime.providers.embedder;
  const builder = await connectDatabase({ ...env, DATABASE_POOL_MAX: 1 });
  return time(() => ensureAnnIndex(builder.db, { model, dimensions }, { memory: env.ANN_INDEX_BUILD_MEMORY })).finally(() =>
    builder.close(),
  );
}

/** Builds the largest users' own indexes as the service does (its policy, a connection of its own); returns the time and what was built. */
export async function buildUserAnnIndexesAsService(runtime: Runtime, env: Env): Promise<{ ms: number; built: number }> {
  const { model, dimensions } = runtime.providers.embedder;
  const builder = await connectDatabase({ ...env, DATABASE_POOL_MAX: 1 });
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
