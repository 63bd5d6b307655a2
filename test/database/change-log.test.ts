import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { connectDatabase } from "../../src/db/connect.js";
import { type Database, type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { MIGRATIONS_FOLDER, migrateDatabase } from "../../src/db/migrate.js";
import { changesAfter, openChangeLog } from "../../src/memory/recall/engines/resident/change-log.js";
import { ResidentMemories } from "../../src/memory/recall/engines/resident/resident-memories.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";

/**
 * The memory change log is part of the schema (migration 0017) on both databases and writes only
 * where it is on, in every embedded session: a resident copy reads every change there in order,
 * and a server pays nothing for it.
 */
const scope = { appId: "default", userId: "logged" };

async function insertMemory(db: Database, content: string, vector?: string): Promise<string> {
  const [row] = await queryRows<{ id: string }>(
    db,
    sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at, embedding, embedding_model)
        VALUES (gen_random_uuid(), ${scope.appId}, ${scope.userId}, 'episodic', 'turn', ${content}, md5(${content}), now() - interval '1 day',
                ${vector ?? null}::halfvec, ${vector ? "model" : null})
        RETURNING id`,
  );
  return (row as { id: string }).id;
}

const stamps = async (db: Database) =>
  queryRows<{ content: string; change_seq: string | null }>(
    db,
    sql`SELECT content, change_seq::text FROM memories WHERE user_id = ${scope.userId} ORDER BY content`,
  );
const deletions = async (db: Database) => (await queryRows<{ id: string }>(db, sql`SELECT id FROM memory_deletions`)).map((row) => row.id);

describe("the memory change log", () => {
  let database: TestDatabase | undefined;
  const handles: DatabaseHandle[] = [];
  const open = async (migrations = MIGRATIONS_FOLDER) => {
    database ??= await freshDatabase({ persistent: true });
    const handle = await connectDatabase({
      dataDir: database.env["DATA_DIR"] ?? "memory://",
      ...(database.url ? { url: database.url } : {}),
    });
    handles.push(handle);
    if (handle.kind === "pglite") await migrateDatabase(handle, migrations);
    return handle;
  };
  const reopen = async (migrations?: string) => {
    for (const handle of handles.splice(0)) await handle.close();
    return open(migrations);
  };
  afterEach(async () => {
    for (const handle of handles.splice(0)) await handle.close();
    await database?.drop();
    database = undefined;
  });

  it.runIf(onPostgres)("stays empty on a server: no stamp, no deletion logged", async () => {
    const { db } = await open();
    const id = await insertMemory(db, "a");
    await db.execute(sql`UPDATE memories SET content = 'b' WHERE id = ${id}`);
    expect(await stamps(db)).toEqual([{ content: "b", change_seq: null }]);
    await db.execute(sql`DELETE FROM memories WHERE id = ${id}`);
    expect(await deletions(db)).toEqual([]);
  });

  it.skipIf(onPostgres)("stamps every change in order and logs deletions, in every embedded session", async () => {
    const first = await open();
    const a = await insertMemory(first.db, "a");
    const b = await insertMemory(first.db, "b");
    await first.db.execute(sql`DELETE FROM memories WHERE id = ${a}`);
    expect(await deletions(first.db)).toEqual([a]);
    expect((await changesAfter(first.db, scope, "model", 0n, 100)).map((change) => [change.id, change.deleted])).toEqual([
      [b, false],
      [a, true],
    ]);
    // An update of a column a copy holds is a change; one of the access counts is not.
    const [before] = await stamps(first.db);
    await first.db.execute(sql`UPDATE memories SET access_count = access_count + 1 WHERE id = ${b}`);
    expect((await stamps(first.db))[0]?.change_seq).toBe(before?.change_seq);
    await first.db.execute(sql`UPDATE memories SET content = 'b again' WHERE id = ${b}`);
    expect(BigInt((await stamps(first.db))[0]?.change_seq as string)).toBeGreaterThan(BigInt(before?.change_seq as string));

    // The next session (the CLI, the next start) writes the log too; a start drops old deletions.
    const second = await reopen();
    const c = await insertMemory(second.db, "c");
    expect((await stamps(second.db)).every((row) => row.change_seq !== null)).toBe(true);
    await openChangeLog(second.db);
    expect(await deletions(second.db)).toEqual([]);
    const last = BigInt((await stamps(second.db))[0]?.change_seq as string);
    expect((await changesAfter(second.db, scope, "model", last, 100)).map((change) => change.id)).toEqual([c]);
  });

  it.skipIf(onPostgres)("gives the rows of a database migrated from before the log a value, so a resident copy finds them", async () => {
    // The migrations up to the one before the change log, as a database of the previous version had them.
    const previous = await mkdtemp(join(tmpdir(), "migrations-"));
    try {
      await cp(MIGRATIONS_FOLDER, previous, { recursive: true });
      const journal = JSON.parse(await readFile(join(previous, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
      journal.entries = journal.entries.filter((entry) => entry.tag < "0017");
      await writeFile(join(previous, "meta/_journal.json"), JSON.stringify(journal));
      const old = await open(previous);
      expect(
        await queryRows(old.db, sql`SELECT 1 FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'change_seq'`),
      ).toEqual([]);
      const vector = `[${Array.from({ length: 8 }, (_, i) => Math.cos(i)).join(",")}]`;
      for (let i = 0; i < 30; i++) await insertMemory(old.db, `old ${i}`, vector);

      const upgraded = await reopen();
      expect((await stamps(upgraded.db)).filter((row) => row.change_seq === null)).toEqual([]);
      const copy = new ResidentMemories({ model: "model", dimensions: 8, maxBytes: 2 ** 24 });
      const nearest = await copy.nearest(
        upgraded.db,
        { ...scope, values: Array.from({ length: 8 }, (_, i) => Math.cos(i)), now: new Date() },
        400,
        100,
      );
      expect(nearest).toHaveLength(30);
    } finally {
      await rm(previous, { recursive: true, force: true });
    }
  });
});
