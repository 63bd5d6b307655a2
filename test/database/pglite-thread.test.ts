import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectDatabase } from "../../src/db/connect.js";
import { describeConnectionFailure, isDatabaseUnavailable } from "../../src/db/connection-errors.js";
import { DataDirInUseError } from "../../src/db/data-dir-lock.js";
import { type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { ThreadedPglite } from "../../src/db/pglite-thread/threaded-pglite.js";
import { sessions } from "../../src/db/schema/index.js";
import { onPostgres } from "../fixtures/database.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

const opened: { close(): Promise<void> }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function open(thread: boolean, dataDir = "memory://"): Promise<DatabaseHandle> {
  const handle = await connectDatabase({ dataDir, thread });
  opened.push(handle);
  return handle;
}

/** Ends a client's thread as a crash would (the test reaches into the client for its worker). */
async function killThread(client: ThreadedPglite): Promise<void> {
  await (client as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
}

/** The longest the event loop went without a turn while `work` ran, and how long `work` took. */
async function longestStall(work: () => Promise<unknown>): Promise<{ stallMs: number; workMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  await work();
  const workMs = performance.now() - started;
  clearInterval(ticker);
  stallMs = Math.max(stallMs, performance.now() - last);
  return { stallMs, workMs };
}

/** Statements the service runs, through drizzle: a migrated schema, typed rows, jsonb, vectors, errors, transactions. */
async function exercise(handle: DatabaseHandle): Promise<unknown[]> {
  await migrateDatabase(handle);
  const { db } = handle;
  const seen: unknown[] = [];
  const id = "00000000-0000-4000-8000-000000000001";
  await db
    .insert(sessions)
    .values({ id, appId: "app", userId: "ana", metadata: { topic: "bread" }, startedAt: new Date("2024-05-01T10:00:00Z") });
  seen.push(
    await db
      .select({
        id: sessions.id,
        metadata: sessions.metadata,
        startedAt: sessions.startedAt,
        endedAt: sessions.endedAt,
        lastSeq: sessions.lastSeq,
      })
      .from(sessions)
      .where(eq(sessions.id, id)),
  );
  seen.push(await queryRows(db, sql`SELECT '[1,2,3]'::vector(3) <-> '[1,2,4]'::vector(3) AS distance, now() > '2020-01-01' AS later`));
  // A transaction that fails rolls back all of it; a nested one (a savepoint) only itself.
  await db
    .transaction(async (tx) => {
      await tx.update(sessions).set({ agentId: "first" }).where(eq(sessions.id, id));
      throw new Error("changed my mind");
    })
    .catch((error: Error) => seen.push(error.message));
  await db.transaction(async (tx) => {
    await tx.update(sessions).set({ agentId: "kept" }).where(eq(sessions.id, id));
    await tx
      .transaction(async (inner) => {
        await inner.update(sessions).set({ agentId: "dropped" }).where(eq(sessions.id, id));
        throw new Error("inner only");
      })
      .catch((error: Error) => seen.push(error.message));
  });
  seen.push(await db.select({ agentId: sessions.agentId }).from(sessions));
  const duplicate = await db
    .insert(sessions)
    .values({ id, appId: "app", userId: "ana" })
    .catch((error: unknown) => error);
  const cause = (duplicate as { cause?: { code?: string; constraint?: string } }).cause;
  seen.push({ code: cause?.code, constraint: cause?.constraint });
  return seen;
}

describe.skipIf(onPostgres)("the embedded database in a thread of its own", () => {
  it("answers the service's statements as PGlite on the main thread does", async () => {
    const onMain = await exercise(await open(false));
    const threaded = await exercise(await open(true));
    expect(onMain).toContainEqual({ code: "23505", constraint: "sessions_pkey" });
    expect(onMain).toContainEqual([{ agentId: "kept" }]);
    expect(threaded).toEqual(onMain);
  });

  it("keeps the event loop turning while a statement runs, where PGlite on the main thread stalls it", async () => {
    const heavy = sql`SELECT count(*) FROM generate_series(1, 2000000) AS i WHERE i % 7 = 3`;
    const main = await open(false);
    const threaded = await open(true);
    // Once each first, so neither measure includes a first call's set-up.
    await main.db.execute(sql`SELECT 1`);
    await threaded.db.execute(sql`SELECT 1`);
    const onMain = await longestStall(() => main.db.execute(heavy));
    const inThread = await longestStall(() => threaded.db.execute(heavy));
    // Ratios to the statement's own time, measured here: the machine's speed does not decide.
    expect(onMain.stallMs).toBeGreaterThan(0.5 * onMain.workMs);
    expect(inThread.stallMs).toBeLessThan(0.25 * inThread.workMs);
  });

  it("keeps its data across a close and a reopen, and its directory locked to one process while open", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pglite-thread-"));
    dirs.push(dir);
    const first = await open(true, dir);
    await first.db.execute(sql`CREATE TABLE notes (body text)`);
    await first.db.execute(sql`INSERT INTO notes VALUES ('kept across a restart')`);
    await expect(connectDatabase({ dataDir: dir, thread: true })).rejects.toBeInstanceOf(DataDirInUseError);
    await first.close();
    const second = await open(true, dir);
    expect(await queryRows(second.db, sql`SELECT body FROM notes`)).toEqual([{ body: "kept across a restart" }]);
  });

  it("hands back Postgres' errors with their fields, and rolls a failed transaction back", async () => {
    const client = await ThreadedPglite.open("memory://");
    opened.push(client);
    await client.exec("CREATE TABLE pantry (item text PRIMARY KEY, jars int CHECK (jars >= 0))");
    await client.query("INSERT INTO pantry VALUES ($1, $2)", ["plum jam", 3]);
    expect(await client.query("INSERT INTO pantry VALUES ($1, $2)", ["plum jam", 1]).catch((error: unknown) => error)).toMatchObject({
      name: "error",
      code: "23505",
      constraint: "pantry_pkey",
      detail: "Key (item)=(plum jam) already exists.",
    });
    expect(await client.query("SELEKT 1").catch((error: unknown) => error)).toMatchObject({ code: "42601", position: "1" });
    // The statement that failed inside it takes the whole transaction back, the first insert too.
    const failed = await client
      .transaction(async (tx) => {
        await tx.query("INSERT INTO pantry VALUES ($1, $2)", ["quince paste", 2]);
        await tx.query("UPDATE pantry SET jars = jars - 5 WHERE item = $1", ["plum jam"]);
      })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: "23514", constraint: "pantry_jars_check" });
    // So does an error of the caller's own, between statements.
    await expect(
      client.transaction(async (tx) => {
        await tx.query("DELETE FROM pantry");
        throw new Error("not today");
      }),
    ).rejects.toThrow("not today");
    const committed = await client.transaction(async (tx) => {
      await tx.exec("INSERT INTO pantry VALUES ('fig relish', 1)");
      return (await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM pantry")).rows[0]?.n;
    });
    expect(committed).toBe(2);
    expect((await client.query("SELECT item, jars FROM pantry ORDER BY item")).rows).toEqual([
      { item: "fig relish", jars: 1 },
      { item: "plum jam", jars: 3 },
    ]);
  });

  it("answers every statement as unavailable (57P02, a 503) once its thread is gone, in flight or after", async () => {
    const lost: Error[] = [];
    const client = await ThreadedPglite.open("memory://", (error) => lost.push(error));
    opened.push(client);
    expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    // A statement inside a transaction is running in the thread when the thread ends.
    const inTransaction = client
      .transaction(async (tx) => {
        await tx.query("SELECT 1");
        const sleeping = tx.query("SELECT pg_sleep(5)");
        setTimeout(() => void killThread(client), 300);
        await sleeping;
      })
      .catch((failure: unknown) => failure);
    for (const error of [await inTransaction, await client.query("SELECT 1").catch((failure: unknown) => failure)]) {
      expect(error).toMatchObject({ code: "57P02" });
      expect(isDatabaseUnavailable(error)).toBe(true);
    }
    expect(lost).toHaveLength(1);
    expect(describeConnectionFailure(lost[0])).toMatch(/thread is gone/);
    await client.close();
  });

  it("a service whose database thread died answers 503 and /readyz says why, without hanging", async () => {
    const open = ThreadedPglite.open.bind(ThreadedPglite);
    let client: ThreadedPglite | undefined;
    const spy = vi.spyOn(ThreadedPglite, "open").mockImplementation(async (...args) => {
      client = await open(...args);
      return client;
    });
    const runtime = await startTestRuntime();
    opened.push(runtime);
    spy.mockRestore();
    expect((await call(runtime.app, "GET", "/readyz")).status).toBe(200);
    if (!client) throw new Error("the runtime did not open a threaded database");
    await killThread(client);
    const ready = await call(runtime.app, "GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.database.error).toMatch(/thread is gone.*\(57P02\)/);
    const write = await runtime.app.request("/v1/memories", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        user_id: "ines",
        type: "semantic",
        subtype: "preference",
        key: "hobby:bees",
        value: "keeps",
        content: "Ines keeps bees.",
      }),
    });
    expect(write.status).toBe(503);
    expect(write.headers.get("retry-after")).not.toBeNull();
  });
});
