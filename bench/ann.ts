import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Runtime } from "../functions/node-runtime.js";
import { queryRows } from "../src/db/database.js";
import { toVectorLiteral } from "../src/db/vector.js";
import { annIndexName, ensureAnnIndex } from "../src/memory/recall/ann-index.js";
import { seedMemories } from "./retrieval.js";
import { time } from "./stats.js";

export interface AnnReport {
  memories: number;
  /** Building the HNSW index over what is there, concurrently. */
  buildMs: number;
  /** Inserting 5,000 embedded memories without the index, then with it. */
  insertMs: { without: number; with: number };
  /** Mean share of the exact top-10 that the indexed search returns, over 20 queries. */
  recallAt10: number;
}

/**
 * The HNSW index on a real Postgres, for the user `bench-<count>` that the retrieval benchmark
 * seeded: build time, the insert cost it adds, and recall@10 of the indexed search against an
 * exact scan of the same user's vectors.
 */
export async function benchAnn(runtime: Runtime, count: number): Promise<AnnReport> {
  const db = runtime.database.db;
  const { model, dimensions } = runtime.providers.embedder;
  const name = annIndexName({ model, dimensions });
  await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
  const without = await time(() => seedMemories(runtime, "bench-ann-insert", 5_000, model));
  const buildMs = await time(() => ensureAnnIndex(db, { model, dimensions }));
  const withIndex = await time(() => seedMemories(runtime, "bench-ann-insert", 5_000, model));

  const userId = `bench-${count}`;
  const queries = await runtime.providers.embedder.embed(Array.from({ length: 20 }, (_, i) => `what happened on day ${i * 17}?`));
  let overlap = 0;
  for (const values of queries) {
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
    const approximate = await nearest(["hnsw.iterative_scan = relaxed_order", "hnsw.ef_search = 64"]);
    const found = new Set(approximate.map((row) => row.id));
    overlap += exact.filter((row) => found.has(row.id)).length / Math.max(1, exact.length);
  }
  return { memories: count, buildMs, insertMs: { without, with: withIndex }, recallAt10: overlap / queries.length };
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
