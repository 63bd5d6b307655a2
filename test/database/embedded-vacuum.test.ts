import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Database, type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { scheduleVacuum, vacuumWhereDue } from "../../src/db/embedded-vacuum.js";
import { oneConnectionDatabase } from "../fixtures/database.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * PGlite runs no autovacuum: the service vacuums the embedded database itself, by autovacuum's
 * rules. The same rules run here on a real Postgres too, with autovacuum off for the table so the
 * server's own cannot do the work first.
 */
describe("vacuuming the embedded database", () => {
  let database: Awaited<ReturnType<typeof oneConnectionDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    // One connection: the statistics an update leaves are this session's, flushed before each read.
    database = await oneConnectionDatabase();
    handle = database.handle;
    if (handle.kind !== "pglite") await handle.db.execute(sql`ALTER TABLE memories SET (autovacuum_enabled = false)`);
  });
  afterAll(async () => {
    await database?.close();
  });

  const flushStatistics = async () => {
    await handle.db.execute(sql`SELECT pg_stat_force_next_flush()`);
    await handle.db.execute(sql`SELECT pg_stat_clear_snapshot()`);
  };
  const tableBytes = async () =>
    Number((await queryRows<{ bytes: string }>(handle.db, sql`SELECT pg_table_size('memories') AS bytes`))[0]?.bytes);

  it("analyzes new rows, vacuums after each daily pass over two months, and the table stops growing", async () => {
    await handle.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash)
          SELECT gen_random_uuid(), 'default', 'vacuumed', 'episodic', 'turn', repeat('a long memory about sailing and tea ', 20) || i, 'vacuumed-' || i
            FROM generate_series(1, 2000) AS i`,
    );
    await flushStatistics();
    expect((await vacuumWhereDue(handle.db)).analyzed).toContain("memories");
    const seeded = await tableBytes();
    // Sixty days of every memory rewritten once a day (as a user whose every memory is read daily).
    for (let day = 1; day <= 60; day++) {
      await handle.db.execute(sql`UPDATE memories SET access_count = access_count + 1 WHERE user_id = 'vacuumed'`);
      await flushStatistics();
      const pass = await vacuumWhereDue(handle.db);
      expect(pass.vacuumed, `day ${day}`).toContain("memories");
    }
    await flushStatistics();
    const [after] = await queryRows<{ dead: number }>(
      handle.db,
      sql`SELECT n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE relname = 'memories'`,
    );
    expect(after?.dead).toBe(0);
    // 1.75× the seeded size; without the passes 2.5× (as checked), with every day's old rows kept.
    expect(await tableBytes()).toBeLessThanOrEqual(2 * seeded);
  });

  it("runs on a schedule, logs a failed pass and tries again, and stops after the pass in flight", async () => {
    await handle.db.execute(sql`UPDATE memories SET access_count = access_count + 1 WHERE user_id = 'vacuumed'`);
    await flushStatistics();
    let failures = 1;
    const flaky = new Proxy(handle.db, {
      get(target, property, receiver) {
        if (property === "execute" && failures > 0) {
          failures--;
          return () => Promise.reject(new Error("connection lost"));
        }
        return Reflect.get(target, property, receiver);
      },
    }) as Database;
    const logger = { info: vi.fn(), warn: vi.fn() };
    const schedule = scheduleVacuum(flaky, { intervalMs: 20, logger });
    try {
      await waitUntil(() => logger.info.mock.calls.length > 0, "a vacuum pass after the failed one");
    } finally {
      await schedule.stop();
    }
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining("failed"), {
      error: expect.objectContaining({ message: "connection lost" }),
    });
    expect(logger.info).toHaveBeenCalledWith("embedded database vacuumed", expect.objectContaining({ vacuumed: ["memories"] }));
    const calls = logger.info.mock.calls.length + logger.warn.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logger.info.mock.calls.length + logger.warn.mock.calls.length).toBe(calls);
  });
});
