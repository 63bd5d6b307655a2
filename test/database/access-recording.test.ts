import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { toVectorLiteral } from "../../src/db/vector.js";
import { AccessRecorder } from "../../src/memory/lifecycle/access-recorder.js";
import { systemClock } from "../../src/util/clock.js";
import { oneConnectionDatabase, onPostgres } from "../fixtures/database.js";

/**
 * Every context window and search records the accesses of what it recalled. Those updates touch
 * no indexed column, so with room on the page they are heap-only: no index (two HNSW graphs for a
 * large user, the words' GIN) gets a new entry per recalled memory per request.
 */
describe("access recording", () => {
  let database: Awaited<ReturnType<typeof oneConnectionDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    // One connection, so its statistics can be flushed and read back at once.
    database = await oneConnectionDatabase();
    handle = database.handle;
  });
  afterAll(async () => {
    await database?.close();
  });

  it("leaves room on each page of memories for updated rows", async () => {
    const [table] = await queryRows<{ options: string[] }>(
      handle.db,
      sql`SELECT reloptions AS options FROM pg_class WHERE relname = 'memories'`,
    );
    expect(table?.options).toContain("fillfactor=80");
  });

  it.runIf(onPostgres)("updates the recalled memories in place: heap-only, no index entry per access", async () => {
    const values = Array.from({ length: 3000 }, (_, i) => {
      const vector = Array.from({ length: 64 }, (_, d) => Math.sin((i + 1) * (d + 1)));
      return sql`(gen_random_uuid(), 'default', 'reader', 'episodic', 'turn', ${`memory ${i} about sailing and tea`}, ${`reader-${i}`}, ${toVectorLiteral(vector)}::halfvec, 'access-test-64', now())`;
    });
    // A recall reads a few of a user's many memories: 5% of them here.
    for (let start = 0; start < values.length; start += 1000)
      await handle.db.execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, embedding, embedding_model, embedded_at) VALUES ${sql.join(values.slice(start, start + 1000), sql`, `)}`,
      );
    const counts = async () => {
      await handle.db.execute(sql`SELECT pg_stat_force_next_flush()`);
      await handle.db.execute(sql`SELECT pg_stat_clear_snapshot()`);
      const [row] = await queryRows<{ updated: number; hot: number }>(
        handle.db,
        sql`SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'memories'`,
      );
      return row as { updated: number; hot: number };
    };
    const before = await counts();
    const ids = (
      await queryRows<{ id: string }>(handle.db, sql`SELECT id FROM memories WHERE user_id = 'reader' ORDER BY random() LIMIT 150`)
    ).map((row) => row.id);
    await new AccessRecorder(handle.db, systemClock, 0).record(ids);
    const after = await counts();
    expect(after.updated - before.updated).toBe(150);
    expect(after.hot - before.hot).toBeGreaterThanOrEqual(143);
    const [accessed] = await queryRows<{ n: number }>(handle.db, sql`SELECT count(*)::int AS n FROM memories WHERE access_count = 1`);
    expect(accessed?.n).toBe(150);
  });

  it("writes a large flush in chunks: every count lands, and a reader gets the database between chunks", async () => {
    const values = Array.from(
      { length: 450 },
      (_, i) => sql`(gen_random_uuid(), 'default', 'chunked', 'episodic', 'turn', ${`memory ${i} about chess`}, ${`chunked-${i}`})`,
    );
    await handle.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash) VALUES ${sql.join(values, sql`, `)}`,
    );
    const ids = (await queryRows<{ id: string }>(handle.db, sql`SELECT id FROM memories WHERE user_id = 'chunked' ORDER BY id`)).map(
      (row) => row.id,
    );
    const accessed = sql`SELECT count(*)::int AS n, coalesce(sum(access_count), 0)::int AS total FROM memories WHERE user_id = 'chunked' AND access_count > 0`;
    // A reader that asks while the flush's first statement runs: it is queued behind that
    // statement alone on the embedded database's one connection (and runs beside it on a server).
    let probe: Promise<{ n: number; total: number }[]> | undefined;
    const watched = {
      execute: (statement: SQL) => {
        // drizzle runs a statement once it is awaited: `then` sends it before the reader's.
        const running = handle.db.execute(statement).then((result) => result);
        probe ??= queryRows<{ n: number; total: number }>(handle.db, accessed);
        return running;
      },
    } as unknown as Database;
    const recorder = new AccessRecorder(watched, systemClock, 0, 100);
    // The first 50 memories asked for twice, by two reads in the same window.
    await Promise.all([recorder.record(ids), recorder.record(ids.slice(0, 50))]);
    const [after] = await queryRows<{ n: number; total: number }>(handle.db, accessed);
    expect(after).toEqual({ n: 450, total: 500 });
    const [seen] = (await probe) ?? [];
    if (handle.kind === "pglite") expect(seen?.n).toBe(100);
    else expect(seen?.n).toBeLessThan(450);
  });
});
