import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectDatabase } from "../../src/db/connect.js";
import { type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { FREEZE_AGE, freezeWhereDue, readXidAges, scheduleFreeze } from "../../src/db/embedded-freeze.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { freshDatabase, onPostgres } from "../fixtures/database.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * PGlite runs no autovacuum, so nothing freezes old transaction ids: after 2^31 write transactions
 * Postgres would refuse every write. What moves that limit is measured here, inside PGlite: the
 * oldest `datfrozenxid` of any database, read back from the control file after a checkpoint.
 */
describe("freezing the embedded database against transaction id wraparound", () => {
  let dataDir: string | undefined;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  /** A migrated embedded database on disk that has run `transactions` write transactions. */
  async function agedDatabase(transactions: number): Promise<DatabaseHandle> {
    dataDir = await mkdtemp(join(tmpdir(), "mnemo-freeze-"));
    handle = await connectDatabase({ dataDir });
    await migrateDatabase(handle);
    for (let i = 0; i < transactions; i++)
      await handle.db.execute(sql`INSERT INTO sessions (id, app_id, user_id) VALUES (gen_random_uuid(), 'default', ${`aged-${i}`})`);
    return handle;
  }

  /** The transaction id Postgres's wraparound limit is counted from (2^31 after it), as the last checkpoint wrote it. */
  async function limitBase(db: DatabaseHandle["db"]): Promise<number> {
    await db.execute(sql`CHECKPOINT`);
    const [row] = await queryRows<{ oldest: string }>(db, sql`SELECT oldest_xid::text AS oldest FROM pg_control_checkpoint()`);
    return Number(row?.oldest);
  }

  it("freezing the service's own database alone leaves the limit where it was: the templates age with it", async () => {
    const { db } = await agedDatabase(1500);
    const base = await limitBase(db);
    await db.execute(sql`VACUUM (FREEZE)`);
    const ages = await readXidAges(db);
    expect(ages.database).toBe(0);
    expect(ages.oldest).toBeGreaterThan(1500);
    expect(ages.oldestName).toMatch(/^template[01]$/);
    expect(await limitBase(db)).toBe(base);
  });

  it("the freeze job lowers the oldest age(datfrozenxid) and moves the limit, and the database lives on after a restart", async () => {
    const { db } = await agedDatabase(1500);
    const base = await limitBase(db);
    const before = await readXidAges(db);
    expect(before.oldest).toBeGreaterThan(1500);

    const pass = await freezeWhereDue(db, 1000);
    expect(pass.dropped.sort()).toEqual(["template0", "template1"]);
    expect(pass.frozen).toEqual(expect.arrayContaining(["public.memories", "public.sessions", "pg_catalog.pg_class"]));
    expect(pass.after.oldest).toBeLessThan(10);
    expect(await limitBase(db)).toBeGreaterThan(base + 1500);

    // Reopened, the database still holds its rows, takes writes and keeps the limit it reached.
    await handle?.close();
    handle = await connectDatabase({ dataDir: dataDir as string });
    const [count] = await queryRows<{ n: number }>(handle.db, sql`SELECT count(*)::int AS n FROM sessions`);
    expect(count?.n).toBe(1500);
    await handle.db.execute(sql`INSERT INTO sessions (id, app_id, user_id) VALUES (gen_random_uuid(), 'default', 'after-freeze')`);
    expect(await limitBase(handle.db)).toBeGreaterThan(base + 1500);
    expect((await readXidAges(handle.db)).oldest).toBeLessThan(10);
  });

  it("does nothing while every database is younger than the freeze age", async () => {
    const { db } = await agedDatabase(50);
    const pass = await freezeWhereDue(db, FREEZE_AGE);
    expect(pass).toMatchObject({ dropped: [], frozen: [] });
    const names = await queryRows<{ name: string }>(db, sql`SELECT datname AS name FROM pg_database ORDER BY 1`);
    expect(names.map((row) => row.name)).toEqual(["postgres", "template0", "template1"]);
  });

  it("runs on a schedule and logs what a pass froze", async () => {
    const { db } = await agedDatabase(20);
    const logger = { info: vi.fn(), warn: vi.fn() };
    const schedule = scheduleFreeze(db, { intervalMs: 10, logger, freezeAge: 10 });
    await waitUntil(() => logger.info.mock.calls.length > 0, "a freeze pass");
    await schedule.stop();
    expect(logger.info).toHaveBeenCalledWith(
      "embedded database frozen",
      expect.objectContaining({ dropped: ["template0", "template1"], oldest_xid_age_after: expect.any(Number) }),
    );
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it("reports the ages in the pipeline status the dashboard shows", async () => {
    const runtime = await startTestRuntime();
    try {
      const status = (await call(runtime.app, "GET", "/v1/pipeline/status")).body;
      expect(status.database.oldest_xid_age).toBeGreaterThan(0);
      expect(status.database.oldest_xid_age).toBeGreaterThanOrEqual(status.database.xid_age);
    } finally {
      await runtime.close();
    }
  });

  it.runIf(onPostgres)("on a real Postgres reads the ages and never drops the server's templates", async () => {
    const database = await freshDatabase();
    const server = await connectDatabase({ url: database.url as string, poolMax: 1 });
    try {
      const pass = await freezeWhereDue(server.db, 0);
      expect(pass.dropped).toEqual([]);
      expect(pass.frozen).toContain("public.memories");
      const names = await queryRows<{ name: string }>(server.db, sql`SELECT datname AS name FROM pg_database WHERE datistemplate`);
      expect(names.map((row) => row.name).sort()).toEqual(expect.arrayContaining(["template0", "template1"]));
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
