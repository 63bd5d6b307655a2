import { sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import type { Env } from "../src/config/env.js";
import { queryRows } from "../src/db/database.js";
import { annIndexName } from "../src/memory/recall/ann-index.js";
import { buildAnnIndexAsService, buildUserAnnIndexesAsService, indexRecallAt10, type RecallAt10 } from "./ann.js";
import { QUERY_EMBEDDING, REPEATED_CONTEXT, seedMemories, TOPICS } from "./retrieval.js";
import { type Summary, summarize, time } from "./stats.js";

const json = { "content-type": "application/json" };
/** The large user's vectors (and the queries measuring recall over them) are of this phase of their own. */
const LARGE_USER_PHASE = 1;

export interface ManyUsersReport {
  users: number;
  perUser: number;
  /** The one user with many more memories than the rest. */
  largeUser: number;
  /** Seeding every memory with the index dropped, then building it as the service does. */
  seedMs: number;
  buildMs: number;
  /** Index size on disk. */
  indexBytes: number;
  /** Then the large users' own indexes (ANN_USER_INDEX_MIN_MEMORIES and up), built as the service builds them. */
  userIndexes: { built: number; ms: number; bytes: number };
  /** Inserting 2,000 embedded memories for one of the many users, and for the large user (two indexes to update). */
  insertMs: { many: number; large: number };
  /** A different one of the many users each request: their raw indexed top-10 (the floor), context and search. */
  many: { raw: Summary; rows: Summary[] };
  /** The same for the large user. */
  large: { raw: Summary; rows: Summary[] };
  /** recall@10 of the indexed search against an exact scan, by ef_search, over sampled users and the large one. */
  recallAt10: { many: Record<number, RecallAt10>; large: Record<number, RecallAt10> };
}

/**
 * Production shape on a real Postgres: `users` users with `perUser` memories each plus one with
 * `largeUser`, under one HNSW index (seeded without it, then built as the service builds it), and
 * the large user's own index once they pass ANN_USER_INDEX_MIN_MEMORIES. Context windows and searches for random users and for the large one, each next to the raw
 * indexed top-10 vector query of the same user (the floor).
 */
export async function benchManyUsers(
  runtime: Runtime,
  env: Env,
  options: { users: number; perUser: number; largeUser: number; iterations: number },
): Promise<ManyUsersReport> {
  const db = runtime.database.db;
  const { model, dimensions } = runtime.providers.embedder;
  const name = annIndexName({ model, dimensions });
  await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
  const userId = (index: number) => `many-${index}`;
  const userPhase = (index: number) => (index * 2.399963) % (2 * Math.PI);
  // Each user's vectors of their own (a phase per user, golden-angle steps): real users do not
  // repeat each other's memories, and near-duplicates across users would be a filtered search's worst case.
  const seedMs = await time(async () => {
    for (let index = 0; index < options.users; index++)
      await seedMemories(runtime, userId(index), options.perUser, model, { phase: userPhase(index), analyze: false });
    await seedMemories(runtime, "many-large", options.largeUser, model, { phase: LARGE_USER_PHASE, analyze: false });
  });
  const buildMs = await buildAnnIndexAsService(runtime, env);
  const userBuild = await buildUserAnnIndexesAsService(runtime, env);
  await db.execute(sql`ANALYZE memories`);
  const [size] = await queryRows<{ bytes: number }>(db, sql`SELECT pg_relation_size(${name}::regclass)::float8 AS bytes`);
  const [userSize] = await queryRows<{ bytes: number }>(
    db,
    sql`SELECT coalesce(sum(pg_relation_size(c.oid)), 0)::float8 AS bytes FROM pg_class c WHERE starts_with(c.relname, 'memories_user_ann_') OR starts_with(c.relname, 'memories_user_words_')`,
  );

  const queries = TOPICS.map((topic) => `What did we say about ${topic}?`);
  const vectors = await runtime.providers.embedder.embed(queries);
  const cast = sql.raw(`halfvec(${dimensions})`);
  const post = (path: string, body: unknown) =>
    time(async () => {
      const response = await runtime.app.request(path, { method: "POST", headers: json, body: JSON.stringify(body) });
      if (response.status !== 200) throw new Error(`${path} failed: ${await response.text()}`);
    });
  const measure = async (label: string, pickUser: (i: number) => string) => {
    const raw: number[] = [];
    const embedding: number[] = [];
    const context: number[] = [];
    const repeated: number[] = [];
    const search: number[] = [];
    for (let i = 0; i < options.iterations + 3; i++) {
      const user = pickUser(i);
      const query = queries[i % queries.length] as string;
      const vector = `[${(vectors[i % vectors.length] as number[]).join(",")}]`;
      const rawTime = await time(() =>
        db.transaction(async (tx) => {
          await tx.execute(sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
          return queryRows(
            tx,
            sql`SELECT id FROM memories WHERE app_id = 'default' AND user_id = ${user} AND embedding_model = ${model}
                 ORDER BY embedding::${cast} <=> ${vector}::${cast} LIMIT 10`,
          );
        }),
      );
      const embeddingTime = await time(() => runtime.providers.embedder.embed([`${query} (${i})`]));
      // Texts of their own, so the query vector cache answers only the repeated context window.
      const contextRequest = { user_id: user, query: `${query} (#${2 * i})`, max_tokens: 2000 };
      const contextTime = await post("/v1/context", contextRequest);
      const repeatedTime = await post("/v1/context", contextRequest);
      const searchTime = await post("/v1/memories/search", { user_id: user, query: `${query} (#${2 * i + 1})`, limit: 10 });
      if (i < 3) continue; // warm-up
      raw.push(rawTime);
      embedding.push(embeddingTime);
      context.push(contextTime);
      repeated.push(repeatedTime);
      search.push(searchTime);
    }
    return {
      raw: summarize(`raw indexed top-10, ${label} (floor)`, raw),
      rows: [
        summarize(QUERY_EMBEDDING, embedding),
        summarize(`context 2000 tokens, ${label}`, context),
        summarize(`${REPEATED_CONTEXT}, ${label}`, repeated),
        summarize(`search top-10, ${label}`, search),
      ],
    };
  };
  // A different user each time: nothing cached for one user helps the next.
  const many = await measure(`1 of ${options.users} users`, (i) => userId((i * 7919) % options.users));
  const large = await measure(`user with ${options.largeUser}`, () => "many-large");
  const sampled = Array.from({ length: 20 }, (_, i) => (i * 104_729) % options.users).map((index) => ({
    userId: userId(index),
    phase: userPhase(index),
  }));
  const recallAt10 = {
    many: await indexRecallAt10(runtime, sampled),
    large: await indexRecallAt10(runtime, [{ userId: "many-large", phase: LARGE_USER_PHASE }]),
  };
  const insertMs = {
    many: await time(() => seedMemories(runtime, userId(0), 2_000, model, { analyze: false })),
    large: await time(() => seedMemories(runtime, "many-large", 2_000, model, { phase: LARGE_USER_PHASE, analyze: false })),
  };
  return {
    users: options.users,
    perUser: options.perUser,
    largeUser: options.largeUser,
    seedMs,
    buildMs,
    indexBytes: Number(size?.bytes ?? 0),
    userIndexes: { ...userBuild, bytes: Number(userSize?.bytes ?? 0) },
    insertMs,
    many,
    large,
    recallAt10,
  };
}
