import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { connectDatabase } from "../../src/db/connect.js";
import { type Database, queryRows } from "../../src/db/database.js";
import { toVectorLiteral } from "../../src/db/vector.js";
import { nearestEntitiesSql } from "../../src/memory/graph/entity-resolution.js";
import { annIndexName, ensureAnnIndex } from "../../src/memory/recall/ann-index.js";
import { reconcileUserAnnIndexes, userAnnIndexName } from "../../src/memory/recall/user-ann-indexes.js";
import { DUPLICATE_SIMILARITY } from "../../src/memory/write/consolidate.js";
import { type NearestRequest, nearestCurrentMemory, nearestCurrentSql } from "../../src/memory/write/nearest-current.js";
import { clusteredUnitVector } from "../fixtures/clustered-vectors.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const MODEL = "write-path-test-64";
const DIMENSIONS = 64;
const scope = { appId: "default", userId: "writer" };
const vectorOf = (cluster: number, item: number) => clusteredUnitVector(cluster, item, DIMENSIONS);
/** A vector a little off `values`: what a restatement of a fact embeds to (similarity ~0.99). */
const nudged = (values: number[], seed: number) => {
  const moved = values.map((value, d) => value + 0.01 * Math.sin(seed * (d + 1)));
  const norm = Math.hypot(...moved);
  return moved.map((value) => value / norm);
};

/**
 * The write path's duplicate check (`nearest-current.ts`) on this pass's database: it finds the
 * memory an exact scan of the user's current rows of those types finds, whatever index is there;
 * on a real Postgres its statement is planned on the model's HNSW index, or on a large user's own,
 * where the statement it replaced (no `halfvec(d)` cast) could use neither.
 */
describe("the write path's nearest current memory", () => {
  let runtime: Runtime;
  let database: TestDatabase;
  const db = () => runtime.database.db;

  beforeAll(async () => {
    database = await freshDatabase();
    // The service's own index upkeep would drop indexes of a model it does not use.
    runtime = await startTestRuntime({ ...database.env, ANN_INDEX: "off" });
    const rows = [];
    // The user's turns (most of a user's memories), their facts, an expired fact, another user's facts,
    // and a crowd of other users' turns, so the user holds a third of the table, not most of it: with
    // most, the planner's costs of the model's index and the user's own lie within its noise.
    for (let i = 0; i < 3000; i++) rows.push({ user: "writer", type: "episodic", expired: false, vector: vectorOf(i % 20, i) });
    for (let i = 0; i < 300; i++) rows.push({ user: "writer", type: "semantic", expired: false, vector: vectorOf(i % 20, 5000 + i) });
    rows.push({ user: "writer", type: "semantic", expired: true, vector: vectorOf(3, 9000) });
    for (let i = 0; i < 1000; i++)
      rows.push({ user: "someone-else", type: "semantic", expired: false, vector: vectorOf(i % 20, 5000 + i) });
    for (let i = 0; i < 6000; i++)
      rows.push({ user: `crowd-${i % 6}`, type: "episodic", expired: false, vector: vectorOf(i % 20, 30_000 + i) });
    for (let start = 0; start < rows.length; start += 500) {
      const values = rows.slice(start, start + 500).map(
        (row, i) =>
          sql`(gen_random_uuid(), 'default', ${row.user}, ${row.type}, ${`${row.type} ${start + i} of ${row.user}`}, ${`${row.user}-${start + i}`},
               ${toVectorLiteral(row.vector)}::halfvec, ${MODEL}, now(), ${row.expired ? sql`now()` : sql`NULL`})`,
      );
      await db().execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, content, content_hash, embedding, embedding_model, embedded_at, expired_at) VALUES ${sql.join(values, sql`, `)}`,
      );
    }
    if (onPostgres) await ensureAnnIndex(db(), { model: MODEL, dimensions: DIMENSIONS });
    await db().execute(sql`ANALYZE memories`);
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
  });

  /** The nearest by an exact scan of the user's current rows of the types: what the check must find. */
  const exactNearest = async (request: NearestRequest) => {
    const [row] = await queryRows<{ id: string; similarity: number }>(
      db(),
      sql`SELECT id, (1 - (embedding <=> ${toVectorLiteral(request.vector)}::halfvec))::float8 AS similarity FROM memories
           WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND type IN ${request.types} AND expired_at IS NULL AND embedding_model = ${MODEL}
           ORDER BY embedding <=> ${toVectorLiteral(request.vector)}::halfvec LIMIT 1`,
    );
    return row;
  };
  const inTransaction = <T>(work: (tx: Database) => Promise<T>) => db().transaction((tx) => work(tx as unknown as Database));

  /** The row `id` names: whose it is, its type, whether it has expired. */
  const rowOf = async (id: string) => {
    const [row] = await queryRows<{ user_id: string; type: string; expired: boolean }>(
      db(),
      sql`SELECT user_id, type, expired_at IS NOT NULL AS expired FROM memories WHERE id = ${id}`,
    );
    return row;
  };

  it("finds a restated fact as a duplicate, never a duplicate of a fact near none, never an expired row or another user's", async () => {
    // The index's walk is approximate, and this fixture is hard on it: twenty tight clusters, between
    // which the graph has few links, so on some builds a walk that starts in the wrong cluster ends
    // there (one or two probes in 200 here, whatever ef_search or the scan's order). So the check is
    // held to what the write path decides over many probes, not to each probe's exact nearest: a
    // check that missed the index, scanned another user's rows or an expired one fails all of them.
    const restatements = Array.from({ length: 100 }, (_, i) => nudged(vectorOf((i * 3) % 20, 5000 + i * 3), i + 1));
    const others = Array.from({ length: 20 }, (_, i) => vectorOf((i * 4) % 20, 20_000 + i));
    const probes = [
      ...restatements.map((vector) => ({ vector, restated: true })),
      ...others.map((vector) => ({ vector, restated: false })),
    ];
    probes.push({ vector: nudged(vectorOf(3, 9000), 99), restated: false });
    let duplicatesFound = 0;
    let nearNone = 0;
    for (const { vector, restated } of probes) {
      const request = { scope, types: ["semantic"], vector, model: MODEL };
      const found = await inTransaction((tx) => nearestCurrentMemory(tx, request));
      const exact = await exactNearest(request);
      if (!found || !exact) throw new Error("the user has current facts: the check and the scan must find one");
      if (restated) expect(exact.similarity).toBeGreaterThan(DUPLICATE_SIMILARITY);
      else if (exact.similarity <= DUPLICATE_SIMILARITY) nearNone++;
      // Never above the exact nearest: a duplicate found is one the exact scan finds too.
      expect(found.similarity).toBeLessThanOrEqual(exact.similarity + 1e-6);
      if (restated && found.similarity > DUPLICATE_SIMILARITY) duplicatesFound++;
      expect(await rowOf(found.id)).toEqual({ user_id: "writer", type: "semantic", expired: false });
    }
    // Nearly every restatement is found; the other probes include facts near none (the expired row's
    // restatement among them), none of which was taken for a duplicate (above).
    expect(duplicatesFound).toBeGreaterThanOrEqual(95);
    expect(nearNone).toBeGreaterThanOrEqual(10);
    // Another model's vectors are never compared.
    expect(
      await inTransaction((tx) => nearestCurrentMemory(tx, { scope, types: ["semantic"], vector: vectorOf(1, 5007), model: "other" })),
    ).toBeUndefined();
  });

  const planOf = (statement: ReturnType<typeof sql>) =>
    inTransaction(async (tx) => {
      await tx.execute(sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('jit', 'off', true)`);
      const plan = await queryRows<{ "QUERY PLAN": string }>(tx, sql`EXPLAIN ${statement}`);
      return plan.map((row) => row["QUERY PLAN"]).join("\n");
    });
  const request = { scope, types: ["semantic"], vector: vectorOf(5, 5005), model: MODEL };
  /** The statement the write path ran before: the distance on the uncast column, which no HNSW index is built on. */
  const before = sql`SELECT id, 1 - (embedding <=> ${toVectorLiteral(request.vector)}::halfvec) AS similarity FROM memories
       WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND type IN ${request.types} AND expired_at IS NULL
         AND embedding IS NOT NULL AND embedding_model = ${MODEL}
       ORDER BY embedding <=> ${toVectorLiteral(request.vector)}::halfvec LIMIT 1`;

  it.runIf(onPostgres)("is planned on the model's HNSW index, which the statement it replaced could not use", async () => {
    const model = annIndexName({ model: MODEL, dimensions: DIMENSIONS });
    const plan = await planOf(nearestCurrentSql(request));
    expect(plan).toContain(`Index Scan using ${model}`);
    expect(await planOf(before)).not.toContain("memories_ann_");
  });

  it("entity resolution's description search reads only the user's nodes, through their index", async () => {
    // Many users' nodes, so a scan of the whole table would cost what a real one does.
    await db().execute(sql`
      INSERT INTO entities (id, app_id, user_id, name, name_key, kind, keys, valid_at, embedding, embedding_model)
      SELECT gen_random_uuid(), 'default', 'user-' || (i % 40), 'Node ' || i, 'node ' || i, 'person', ARRAY['node ' || i], now(),
             (SELECT array_agg(sin(g * (1 + i % 20)) + 0.1 * cos(g * i))::real[] FROM generate_series(1, ${DIMENSIONS}) AS g)::halfvec, ${MODEL}
        FROM generate_series(1, 4000) AS i`);
    await db().execute(sql`ANALYZE entities`);
    const vector = { values: vectorOf(2, 7), model: MODEL };
    const plan = await planOf(nearestEntitiesSql({ appId: "default", userId: "user-7" }, vector));
    expect(plan).toMatch(/Index (Only )?Scan using entities_user_\w+|Bitmap Index Scan on entities_user_\w+/);
    expect(plan).not.toContain("Seq Scan on entities");
    const [nearest] = await queryRows<{ id: string }>(db(), nearestEntitiesSql({ appId: "default", userId: "user-7" }, vector));
    const [owner] = await queryRows<{ user_id: string }>(db(), sql`SELECT user_id FROM entities WHERE id = ${nearest?.id}`);
    expect(owner?.user_id).toBe("user-7");
  });

  it.runIf(onPostgres)("is planned on a large user's own index once they have one, as recall's statement is", async () => {
    const single = await connectDatabase({ url: database.url as string, poolMax: 1 });
    try {
      await reconcileUserAnnIndexes(
        single.db,
        { model: MODEL, dimensions: DIMENSIONS },
        { minMemories: 2000, maxIndexes: 1 },
        { memory: "64MB" },
      );
    } finally {
      await single.close();
    }
    await db().execute(sql`ANALYZE memories`);
    const own = userAnnIndexName({ model: MODEL, dimensions: DIMENSIONS }, scope);
    expect(await planOf(nearestCurrentSql(request))).toContain(`Index Scan using ${own}`);
    // Another user's check stays on the model's index: the predicate of this one names the user.
    const other = await planOf(nearestCurrentSql({ ...request, scope: { appId: "default", userId: "someone-else" } }));
    expect(other).not.toContain(own);
  });
});
