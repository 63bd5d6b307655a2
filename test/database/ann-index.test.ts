import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { connectDatabase } from "../../src/db/connect.js";
import { queryRows } from "../../src/db/database.js";
import { toVectorLiteral } from "../../src/db/vector.js";
import { annIndexName, ensureAnnIndex, HNSW_BUILD } from "../../src/memory/recall/ann-index.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { clusteredUnitVector } from "../fixtures/clustered-vectors.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

const MODEL = "ann-test-64";
const DIMENSIONS = 64;

/** 20 clusters, items spread around each centre. */
const vectorOf = (cluster: number, item: number) => clusteredUnitVector(cluster, item, DIMENSIONS);

describe.runIf(onPostgres)("HNSW index per embedding model (real Postgres)", () => {
  let runtime: Runtime;
  const index = annIndexName({ model: MODEL, dimensions: DIMENSIONS });
  const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(runtime.database.db, query);

  let database: TestDatabase;

  beforeAll(async () => {
    database = await freshDatabase();
    runtime = await startTestRuntime(database.env);
    // The configured model's index is built in the background at start-up.
    const configured = annIndexName({ model: runtime.providers.embedder.model, dimensions: runtime.providers.embedder.dimensions });
    await waitUntil(
      async () =>
        (
          await rows<{ valid: boolean }>(
            sql`SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${configured}`,
          )
        )[0]?.valid === true,
      "the configured model's HNSW index",
    );
    const values = [];
    for (const user of ["ann-user", "ann-other"])
      for (let i = 0; i < 400; i++)
        values.push(
          sql`(gen_random_uuid(), 'default', ${user}, 'episodic', 'turn', ${`memory ${i} of ${user}`}, ${`${user}-${i}`}, ${toVectorLiteral(vectorOf(i % 20, i))}::halfvec, ${MODEL}, now())`,
        );
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, embedding, embedding_model, embedded_at) VALUES ${sql.join(values, sql`, `)}`,
    );
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
  });

  it("builds with its graph parameters and memory setting on a connection of its own, and drops the model's older indexes", async () => {
    const target = { model: MODEL, dimensions: DIMENSIONS };
    // An index from an earlier release (pgvector's default parameters, another name) and another
    // model's index.
    const hnsw = (name: string, model: string) =>
      runtime.database.db.execute(
        sql.raw(
          `CREATE INDEX "${name}" ON memories USING hnsw ((embedding::halfvec(${DIMENSIONS})) halfvec_cosine_ops) WHERE embedding_model = '${model}'`,
        ),
      );
    await hnsw("memories_ann_older_release", MODEL);
    await hnsw("memories_ann_other_model", "another-model");
    await runtime.database.db.execute(sql.raw(`DROP INDEX IF EXISTS "${index}"`));

    const url = database.url as string;
    const single = await connectDatabase({ url: url, poolMax: 1 });
    try {
      const setting = async () =>
        (await queryRows<{ value: string }>(single.db, sql`SELECT current_setting('maintenance_work_mem') AS value`))[0]?.value;
      const before = await setting();
      expect(await ensureAnnIndex(single.db, target, { memory: "96MB" })).toBe(true);
      expect(await setting()).toBe(before);
    } finally {
      await single.close();
    }
    const indexes = await rows<{ name: string; options: string[] | null }>(
      sql`SELECT c.relname AS name, c.reloptions AS options FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
           WHERE i.indrelid = 'memories'::regclass AND c.relname LIKE 'memories_ann_%'`,
    );
    const names = indexes.map((row) => row.name);
    expect(names).toContain(index);
    expect(names).toContain("memories_ann_other_model");
    expect(names).not.toContain("memories_ann_older_release");
    expect(indexes.find((row) => row.name === index)?.options).toEqual(
      expect.arrayContaining([`m=${HNSW_BUILD.m}`, `ef_construction=${HNSW_BUILD.efConstruction}`]),
    );
    await runtime.database.db.execute(sql`DROP INDEX memories_ann_other_model`);
  });

  it("builds idempotently, replaces an invalid build, and names the index per model and dimension", async () => {
    expect(await ensureAnnIndex(runtime.database.db, { model: MODEL, dimensions: DIMENSIONS })).toBe(true);
    expect(await ensureAnnIndex(runtime.database.db, { model: MODEL, dimensions: DIMENSIONS })).toBe(true);
    // A concurrent build that died half-way leaves the index invalid: it is rebuilt, not kept.
    await runtime.database.db.execute(sql`UPDATE pg_index SET indisvalid = false WHERE indexrelid = ${index}::regclass`);
    expect(await ensureAnnIndex(runtime.database.db, { model: MODEL, dimensions: DIMENSIONS })).toBe(true);
    const [definition] = await rows<{ def: string; valid: boolean }>(
      sql`SELECT pg_get_indexdef(c.oid) AS def, i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = ${index}`,
    );
    expect(definition?.valid).toBe(true);
    expect(definition?.def).toContain("hnsw");
    expect(definition?.def).toContain(`halfvec(${DIMENSIONS})`);
    expect(definition?.def).toContain(`'${MODEL}'`);
    expect(annIndexName({ model: MODEL, dimensions: 128 })).not.toBe(index);
  });

  it("recalls through the index what an exact search finds, only the user's own, and the planner uses it", async () => {
    await ensureAnnIndex(runtime.database.db, { model: MODEL, dimensions: DIMENSIONS });
    await runtime.database.db.execute(sql`ANALYZE memories`);
    let agreement = 0;
    for (let cluster = 0; cluster < 20; cluster += 4) {
      const query = { appId: "default", userId: "ann-user", text: "zzzz", limit: 10, now: new Date(Date.now() + 60_000) };
      const values = vectorOf(cluster, 1000 + cluster);
      const exact = await recallMemories(runtime.database.db, { ...query, vector: { values, model: MODEL } });
      const indexed = await recallMemories(runtime.database.db, { ...query, vector: { values, model: MODEL, annDimensions: DIMENSIONS } });
      expect(indexed).toHaveLength(10);
      expect(indexed.every((memory) => memory.content.endsWith("of ann-user"))).toBe(true);
      const found = new Set(indexed.map((memory) => memory.id));
      agreement += exact.filter((memory) => found.has(memory.id)).length / exact.length;
    }
    expect(agreement / 5).toBeGreaterThanOrEqual(0.95);

    const plan = await runtime.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      await tx.execute(sql`SET LOCAL enable_bitmapscan = off`);
      await tx.execute(sql`SET LOCAL enable_indexscan = on`);
      return queryRows<{ "QUERY PLAN": string }>(
        tx,
        sql`EXPLAIN SELECT id FROM memories m WHERE m.user_id = 'ann-user' AND m.embedding_model = ${MODEL}
             ORDER BY m.embedding::halfvec(${sql.raw(String(DIMENSIONS))}) <=> ${toVectorLiteral(vectorOf(0, 1))}::halfvec(${sql.raw(String(DIMENSIONS))}) LIMIT 10`,
      );
    });
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain(index);
  });

  it("serves search and context through the API while the configured model has its index", async () => {
    const session = await call(runtime.app, "POST", "/v1/sessions", { user_id: "ann-api" });
    await call(runtime.app, "POST", `/v1/sessions/${session.body.id}/events`, {
      events: [{ type: "message", role: "user", content: "I keep bees on my balcony in Ghent." }],
    });
    await waitUntil(async () => {
      const found = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "ann-api", query: "bees balcony", limit: 5 });
      return found.status === 200 && JSON.stringify(found.body).includes("Ghent");
    }, "the appended turn to be searchable");
    const context = await call(runtime.app, "POST", "/v1/context", { user_id: "ann-api", query: "Where are the bees?", max_tokens: 400 });
    expect(context.status).toBe(200);
    expect(context.body.prompt).toContain("Ghent");
  });
});
