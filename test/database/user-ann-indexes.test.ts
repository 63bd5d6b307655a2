import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { connectDatabase } from "../../src/db/connect.js";
import { type Database, queryRows } from "../../src/db/database.js";
import { toVectorLiteral } from "../../src/db/vector.js";
import { annIndexName, HNSW_BUILD } from "../../src/memory/recall/ann-index.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import {
  type ReconcileReport,
  reconcileUserAnnIndexes,
  userAnnIndexName,
  userWordIndexName,
} from "../../src/memory/recall/user-ann-indexes.js";
import { clusteredUnitVector } from "../fixtures/clustered-vectors.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

const MODEL = "user-ann-test-64";
const TARGET = { model: MODEL, dimensions: 64 };
const POLICY = { minMemories: 400, maxIndexes: 2 };

const vectorOf = (cluster: number, item: number, dimensions = 64) => clusteredUnitVector(cluster, item, dimensions);

/** Scans of an index so far, as the statistics of `db` (one connection, flushed and read back at once) count them. */
async function indexScans(db: Database, name: string): Promise<number> {
  await db.execute(sql`SELECT pg_stat_force_next_flush()`);
  await db.execute(sql`SELECT pg_stat_clear_snapshot()`);
  const [row] = await queryRows<{ scans: number }>(
    db,
    sql`SELECT idx_scan::int AS scans FROM pg_stat_user_indexes WHERE indexrelname = ${name}`,
  );
  return row?.scans as number;
}

/**
 * The largest users' own HNSW indexes on a real Postgres: who gets one, that recall's own
 * statement is planned on it, and that it goes when the user shrinks, is erased or the model changes.
 */
describe.runIf(onPostgres)("per-user vector indexes (real Postgres)", () => {
  let runtime: Runtime;
  let database: TestDatabase;
  const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(runtime.database.db, query);
  const userIndexes = async () =>
    (
      await rows<{ name: string; valid: boolean; definition: string }>(
        sql`SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(c.oid) AS definition FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE i.indrelid = 'memories'::regclass AND starts_with(c.relname, 'memories_user_ann_') ORDER BY 1`,
      )
    ).map((row) => ({ ...row }));
  const seed = async (userId: string, count: number, model = MODEL, dimensions = 64) => {
    const values = Array.from(
      { length: count },
      (_, i) =>
        sql`(gen_random_uuid(), 'default', ${userId}, 'episodic', 'turn', ${`memory ${i} of ${userId}`}, ${`${userId}-${i}-${model}`}, ${toVectorLiteral(vectorOf(i % 20, i, dimensions))}::halfvec, ${model}, now())`,
    );
    for (let start = 0; start < values.length; start += 500)
      await runtime.database.db.execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, embedding, embedding_model, embedded_at) VALUES ${sql.join(values.slice(start, start + 500), sql`, `)}`,
      );
  };
  const reconcile = async (policy = POLICY, target = TARGET): Promise<ReconcileReport> => {
    // As the service runs it: a connection of its own with the build's memory setting.
    const single = await connectDatabase({ url: database.url as string, poolMax: 1 });
    try {
      const report = await reconcileUserAnnIndexes(single.db, target, policy, { memory: "64MB" });
      return { ...report, dropped: [...report.dropped].sort() };
    } finally {
      await single.close();
    }
  };
  const words = (userId: string) => userWordIndexName({ appId: "default", userId });

  beforeAll(async () => {
    database = await freshDatabase();
    // No upkeep of the service's own here: it would drop these indexes of a model it does not use.
    runtime = await startTestRuntime({ ...database.env, ANN_INDEX: "off" });
    await seed("large", 600);
    await seed("second", 450);
    await seed("third", 420);
    await seed("hovering", 300);
    await seed("small", 50);
    await runtime.database.db.execute(sql`ANALYZE memories`);
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
  });

  it("gives the largest users past the threshold an index of their own, at most maxIndexes, idempotently", async () => {
    const report = await reconcile();
    const expected = ["large", "second"].map((userId) => userAnnIndexName(TARGET, { appId: "default", userId }));
    expect(report.built.sort()).toEqual([...expected].sort());
    const indexes = await userIndexes();
    expect(indexes.map((index) => index.name)).toEqual([...expected].sort());
    expect(indexes.every((index) => index.valid)).toBe(true);
    const large = indexes.find((index) => index.name === expected[0]);
    expect(large?.definition).toContain("hnsw");
    expect(large?.definition).toContain("halfvec(64)");
    expect(large?.definition).toContain("user_id = 'large'::text");
    expect(large?.definition).toContain(`embedding_model = '${MODEL}'::text`);
    // The name holds a hash, never the user's id.
    expect(expected[0]).not.toContain("large");
    // And an index of their words, keyed by app and user.
    expect(report.wordsBuilt.sort()).toEqual([words("large"), words("second")].sort());
    const [definition] = await rows<{ definition: string }>(sql`SELECT pg_get_indexdef(${words("large")}::regclass) AS definition`);
    expect(definition?.definition).toContain("gin (content_tsv)");
    expect(definition?.definition).toContain("user_id = 'large'::text");
    expect(await reconcile()).toEqual({ built: [], wordsBuilt: [], dropped: [], pending: 0 });
  });

  it("recall's own statement for that user runs on their index, and finds what an exact search finds", async () => {
    const name = userAnnIndexName(TARGET, { appId: "default", userId: "large" });
    // One connection, so its statistics can be flushed and read back at once.
    const single = await connectDatabase({ url: database.url as string, poolMax: 1 });
    try {
      const scans = () => indexScans(single.db, name);
      const before = await scans();
      let agreement = 0;
      for (let cluster = 0; cluster < 20; cluster += 4) {
        const query = { appId: "default", userId: "large", text: "zzzz", limit: 10, now: new Date(Date.now() + 60_000) };
        const values = vectorOf(cluster, 1000 + cluster);
        const exact = await recallMemories(single.db, { ...query, vector: { values, model: MODEL } });
        const indexed = await recallMemories(single.db, { ...query, vector: { values, model: MODEL, annDimensions: 64 } });
        expect(indexed).toHaveLength(10);
        expect(indexed.every((memory) => memory.content.endsWith("of large"))).toBe(true);
        const found = new Set(indexed.map((memory) => memory.id));
        agreement += exact.filter((memory) => found.has(memory.id)).length / exact.length;
      }
      expect(agreement / 5).toBeGreaterThanOrEqual(0.95);
      // No other HNSW index holds this model: without the planner taking the user's, recall would scan exactly.
      expect(await scans()).toBe(before + 5);
    } finally {
      await single.close();
    }
  });

  it("recall's text ranking for that user reads their word index, and ranks as a pass over their rows does", async () => {
    const single = await connectDatabase({ url: database.url as string, poolMax: 1 });
    try {
      const scans = () => indexScans(single.db, words("large"));
      const query = { appId: "default", userId: "large", text: "memory 17 of large", limit: 30, now: new Date(Date.now() + 60_000) };
      const before = await scans();
      // 600 memories are read row by row unless told they are many.
      const byIndex = await recallMemories(single.db, query, { wordIndexMinCorpus: 0 });
      expect(await scans()).toBeGreaterThan(before);
      const byRows = await recallMemories(single.db, query);
      expect(byIndex[0]?.content).toBe("memory 17 of large");
      expect(byIndex.map((memory) => memory.coverage)).toEqual(byRows.map((memory) => memory.coverage));
    } finally {
      await single.close();
    }
  });

  it("the largest users win the places; a user keeps theirs down to half the threshold; another model's go", async () => {
    const name = (userId: string) => userAnnIndexName(TARGET, { appId: "default", userId });
    const shrink = (userId: string, by: number) =>
      runtime.database.db.execute(
        sql`DELETE FROM memories WHERE id IN (SELECT id FROM memories WHERE user_id = ${userId} ORDER BY id LIMIT ${by})`,
      );
    // "second" 450 → 220: "third" (420) is now one of the two largest past the threshold and takes its place.
    await shrink("second", 230);
    expect(await reconcile()).toEqual({
      built: [name("third")],
      wordsBuilt: [words("third")],
      dropped: [name("second"), words("second")].sort(),
      pending: 0,
    });
    // With places to spare, "third" 420 → 250 (below the threshold of 400, above half of it) keeps its index…
    const roomy = { ...POLICY, maxIndexes: 10 };
    await shrink("third", 170);
    expect(await reconcile(roomy)).toEqual({ built: [], wordsBuilt: [], dropped: [], pending: 0 });
    // …and 250 → 150 loses it.
    await shrink("third", 100);
    expect(await reconcile(roomy)).toEqual({ built: [], wordsBuilt: [], dropped: [name("third"), words("third")].sort(), pending: 0 });

    // The service moves to another model: the old model's indexes go; its users have no vectors of the new one yet.
    const switched = await reconcile(POLICY, { model: "another-model", dimensions: 64 });
    expect(switched.dropped).toEqual([name("large"), words("large")].sort());
    expect(switched.built).toEqual([]);
    expect(await userIndexes()).toEqual([]);
    await reconcile();
  });

  it("a user id with quotes, a backslash and non-ASCII letters gets a valid index whose predicate is that user, and recall through it", async () => {
    const userId = `o'brien \\ "x" ünï`;
    await seed(userId, 420);
    await runtime.database.db.execute(sql`ANALYZE memories`);
    const name = userAnnIndexName(TARGET, { appId: "default", userId });
    expect((await reconcile({ ...POLICY, maxIndexes: 10 })).built).toContain(name);
    const [index] = (await userIndexes()).filter((found) => found.name === name);
    expect(index?.valid).toBe(true);
    // The predicate holds exactly that id: a query for it is planned on the index and finds only that user's memories.
    const [matches] = await rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM memories WHERE app_id = 'default' AND user_id = ${userId} AND embedding_model = ${MODEL}`,
    );
    expect(matches?.n).toBe(420);
    const query = { appId: "default", userId, text: "zzzz", limit: 10, now: new Date(Date.now() + 60_000) };
    const indexed = await recallMemories(runtime.database.db, {
      ...query,
      vector: { values: vectorOf(3, 7), model: MODEL, annDimensions: 64 },
    });
    expect(indexed).toHaveLength(10);
    expect(indexed.every((memory) => memory.content.endsWith(`of ${userId}`))).toBe(true);
    const plan = await rows<{ "QUERY PLAN": string }>(
      sql`EXPLAIN SELECT id FROM memories m WHERE m.app_id = 'default' AND m.user_id = ${userId} AND m.embedding_model = ${MODEL}
           ORDER BY m.embedding::halfvec(64) <=> ${toVectorLiteral(vectorOf(3, 7))}::halfvec(64) LIMIT 10`,
    );
    expect(plan.map((line) => line["QUERY PLAN"]).join("\n")).toContain(name);
  });
});

describe.runIf(onPostgres)("per-user vector indexes kept by the service (real Postgres)", () => {
  let runtime: Runtime | undefined;
  afterAll(async () => {
    await runtime?.close();
  });

  it("the service builds them on its own schedule for its model, and an erased user's index goes with the user", async () => {
    const started = await startTestRuntime({ ANN_USER_INDEX_MIN_MEMORIES: "300", ANN_USER_INDEX_INTERVAL: "1s" });
    runtime = started;
    const { model, dimensions } = started.providers.embedder;
    const indexes = async () =>
      (
        await queryRows<{ name: string; valid: boolean }>(
          started.database.db,
          sql`SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE i.indrelid = 'memories'::regclass AND (starts_with(c.relname, 'memories_user_ann_') OR starts_with(c.relname, 'memories_user_words_'))
               ORDER BY 1`,
        )
      ).map((row) => ({ ...row }));
    for (const [userId, count] of [
      ["service-large", 320],
      ["service-small", 40],
    ] as const) {
      const values = Array.from(
        { length: count },
        (_, i) =>
          sql`(gen_random_uuid(), 'default', ${userId}, 'episodic', 'turn', ${`memory ${i}`}, ${`${userId}-${i}`}, ${toVectorLiteral(vectorOf(i % 20, i, dimensions))}::halfvec, ${model}, now())`,
      );
      await started.database.db.execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, embedding, embedding_model, embedded_at) VALUES ${sql.join(values, sql`, `)}`,
      );
    }
    const name = userAnnIndexName({ model, dimensions }, { appId: "default", userId: "service-large" });
    const wordIndex = userWordIndexName({ appId: "default", userId: "service-large" });
    await waitUntil(
      async () => (await indexes()).filter((index) => index.valid).length === 2,
      "the periodic upkeep builds both of the user's indexes",
    );
    expect((await indexes()).map((index) => index.name)).toEqual([name, wordIndex].sort());

    expect((await call(started.app, "DELETE", "/v1/users/service-large")).status).toBe(200);
    await started.background.settle();
    expect(await indexes()).toEqual([]);
    // The upkeep does not build it again: the user has no memories left.
    await started.ann?.reconcileUsers();
    expect(await indexes()).toEqual([]);
  });

  it("one process builds at a time, and a replica that found its model's index still building starts using it once valid", async () => {
    const database = await freshDatabase();
    const url = database.url as string;
    const session = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    };
    const env = { ...database.env, ANN_USER_INDEX_MIN_MEMORIES: "300", ANN_USER_INDEX_INTERVAL: "1s" };
    const clients: pg.Client[] = [];
    let first: Runtime | undefined;
    let replica: Runtime | undefined;
    try {
      first = await startTestRuntime(env);
      const { db } = first.database;
      const { model, dimensions } = first.providers.embedder;
      const userIndexes = async () =>
        (
          await queryRows<{ n: number }>(
            db,
            sql`SELECT count(*)::int AS n FROM pg_class WHERE starts_with(relname, 'memories_user_ann_') OR starts_with(relname, 'memories_user_words_')`,
          )
        )[0]?.n;
      // Another process's build cycle holds the lock: the upkeep skips its turns.
      const otherProcess = await session();
      clients.push(otherProcess);
      await otherProcess.query("SELECT pg_advisory_lock(x'6d6e656d6f01'::bigint)");
      const values = Array.from(
        { length: 320 },
        (_, i) =>
          sql`(gen_random_uuid(), 'default', 'lock-large', 'episodic', 'turn', ${`memory ${i}`}, ${`lock-${i}`}, ${toVectorLiteral(vectorOf(i % 20, i, dimensions))}::halfvec, ${model}, now())`,
      );
      await db.execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, embedding, embedding_model, embedded_at) VALUES ${sql.join(values, sql`, `)}`,
      );
      await first.ann?.reconcileUsers();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await userIndexes()).toBe(0);
      await otherProcess.query("SELECT pg_advisory_unlock(x'6d6e656d6f01'::bigint)");
      await waitUntil(async () => (await userIndexes()) === 2, "the upkeep builds once the lock is free");
      await first.close();
      first = undefined;

      // A replica starts while another process's build of the model's index waits for an old snapshot.
      const modelIndex = annIndexName({ model, dimensions });
      const reader = await session();
      const builder = await session();
      const watcher = await session();
      clients.push(reader, builder, watcher);
      await reader.query(`DROP INDEX "${modelIndex}"`);
      await reader.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await reader.query("SELECT count(*) FROM memories");
      const build = builder.query(
        `CREATE INDEX CONCURRENTLY "${modelIndex}" ON memories USING hnsw ((embedding::halfvec(${dimensions})) halfvec_cosine_ops)
           WITH (m = ${HNSW_BUILD.m}, ef_construction = ${HNSW_BUILD.efConstruction}) WHERE embedding_model = '${model}'`,
      );
      await waitUntil(
        async () => (await watcher.query(`SELECT 1 FROM pg_stat_progress_create_index`)).rowCount === 1,
        "the other process's build is under way",
      );
      replica = await startTestRuntime(env);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(replica.ann?.dimensionsFor(model)).toBeUndefined();
      await reader.query("COMMIT");
      await build;
      await waitUntil(async () => replica?.ann?.dimensionsFor(model) === dimensions, "the replica takes the index once it is valid");
    } finally {
      await replica?.close();
      await first?.close();
      for (const client of clients) await client.end().catch(() => undefined);
      await database.drop();
    }
  });
});
