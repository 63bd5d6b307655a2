import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * Issue 37, "erasure stays on disk": after DELETE /v1/users/:id, no file of the database holds a
 * byte of what the user wrote. Embedded, that is every file under DATA_DIR, WAL included; on a
 * server, every heap, index and TOAST file of the database (`base/<its oid>`: its WAL is the
 * server's, see docs/benchmarks.md "Erasure on disk").
 */
describe.runIf(!onPostgres || process.getuid?.() === 0)("erasure reaches the disk", () => {
  let database: TestDatabase;
  let runtime: Runtime;
  beforeAll(async () => {
    database = await freshDatabase({ persistent: true });
    runtime = await startTestRuntime(database.env);
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
  });

  /** The directory whose files hold this database: DATA_DIR embedded, the database's own directory on a server. */
  async function databaseFiles(): Promise<string> {
    if (!onPostgres) return database.env["DATA_DIR"] as string;
    const [row] = await queryRows<{ dir: string }>(
      runtime.database.db,
      sql`SELECT current_setting('data_directory') || '/base/' || (SELECT oid FROM pg_database WHERE datname = current_database()) AS dir`,
    );
    return row?.dir as string;
  }

  /** Files under `dir` (recursively) whose bytes contain `marker`. */
  async function filesHolding(dir: string, marker: string): Promise<string[]> {
    const needle = Buffer.from(marker);
    const found: string[] = [];
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const bytes = await readFile(path).catch(() => undefined);
      if (bytes?.includes(needle)) found.push(path.slice(dir.length + 1));
    }
    return found;
  }

  /** Data files named by the relation they hold on a server (`19955` → `19955 (memories)`), as they are on PGlite. */
  async function named(files: string[]): Promise<string[]> {
    if (!onPostgres) return files;
    return Promise.all(
      files.map(async (file) => {
        const node = Number(file.split(/[._]/)[0]);
        if (!Number.isInteger(node)) return file;
        const [row] = await queryRows<{ name: string | null }>(
          runtime.database.db,
          sql`SELECT pg_filenode_relation(0, ${node})::regclass::text AS name`,
        );
        return `${file} (${row?.name ?? "unknown relation"})`;
      }),
    );
  }

  /** A session of the database holding a snapshot (and no table lock) until `end()`. */
  async function olderSnapshot(url: string): Promise<{ end(): Promise<void> }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await client.query("SELECT 1");
    return { end: () => client.query("COMMIT").then(() => client.end()) };
  }

  async function writeAbout(userId: string, marker: string): Promise<void> {
    const sessionId = await createSession(runtime.app, userId);
    await call(runtime.app, "PATCH", `/v1/sessions/${sessionId}/state`, { user: { note: `remember ${marker}` } });
    const events = Array.from({ length: 30 }, (_, i) =>
      message(i % 2 ? "assistant" : "user", `Turn ${i}: my locker code is ${marker} and I keep it in the blue notebook.`),
    );
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await call(runtime.app, "POST", "/v1/memories", { user_id: userId, type: "insight", content: `Locker code ${marker}.` });
    await waitForSettled(runtime.app, userId);
  }

  it("leaves no byte of the erased user's words in any data file; the other user's stay", async () => {
    const erased = `erz${randomBytes(8).toString("hex")}`;
    const kept = `kpt${randomBytes(8).toString("hex")}`;
    await writeAbout("erased", erased);
    await writeAbout("kept", kept);
    await runtime.database.db.execute(sql`CHECKPOINT`);
    const dir = await databaseFiles();
    // The scan sees what is stored: both markers are on disk before the erasure.
    expect((await filesHolding(dir, erased)).length).toBeGreaterThan(0);

    // On a server, another session holds a snapshot older than the erasure for a moment, as a
    // request or a step in flight does: a rewrite meanwhile would copy the rows it can still see.
    const older = onPostgres ? await olderSnapshot(database.url as string) : undefined;
    const answer = await call(runtime.app, "DELETE", "/v1/users/erased");
    expect(answer.status).toBe(200);
    expect(answer.body.erased.events).toBe(30);
    const released = older ? new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => older.end()) : undefined;
    // The scrub runs after the response.
    await runtime.background.settle();
    await released;

    expect(await named(await filesHolding(dir, erased))).toEqual([]);
    expect((await filesHolding(dir, kept)).length).toBeGreaterThan(0);
    // The kept user is still served.
    const context = await call(runtime.app, "GET", "/v1/memories?user_id=kept");
    expect(context.status).toBe(200);
    expect(JSON.stringify(context.body)).toContain(kept);
  });
});
