import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, queryRows } from "../../src/db/database.js";
import { type DecayScope, decayBatch } from "../../src/memory/lifecycle/decay.js";
import { parseDecayCursor } from "../../src/memory/lifecycle/decay-walk.js";
import { DecayParametersSchema } from "../../src/memory/lifecycle/retention.js";
import { oneConnectionDatabase } from "../fixtures/database.js";

const PER_USER = 240;

/**
 * A decay pass judges every current memory of its scope exactly once, batch by batch: the whole
 * store in storage order (heap pages), one user newest first through their own rows. Rows that
 * share a creation time (a bulk insert, an import) must neither be skipped nor judged twice at a
 * batch boundary, whatever the batch size.
 */
describe("the batches of a decay pass", () => {
  let database: Awaited<ReturnType<typeof oneConnectionDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await oneConnectionDatabase();
    handle = database.handle;
    // Two users, their memories created in runs of 40 at one instant; a few already forgotten.
    await handle.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, created_at, valid_at, expired_at)
      SELECT gen_random_uuid(), 'walk', u, 'episodic', 'turn', 'user: note ' || i, md5(u || i), 0.9,
             timestamptz '2026-01-01' + make_interval(hours => i / 40), timestamptz '2026-01-01',
             CASE WHEN i % 50 = 0 THEN timestamptz '2026-02-01' END
        FROM generate_series(1, ${PER_USER}) AS i, unnest(ARRAY['ana', 'bo']) AS u`);
  });
  afterAll(async () => {
    await database?.close();
  });

  async function walk(
    scope: DecayScope,
    batchSize: number,
  ): Promise<{ judged: number; batches: number; cursors: string[]; largest: number }> {
    const parameters = DecayParametersSchema.parse({});
    let cursor: string | null = null;
    let judged = 0;
    let batches = 0;
    let largest = 0;
    const cursors: string[] = [];
    do {
      const batch = await decayBatch(handle.db, scope, parameters, cursor, new Date("2026-03-01T00:00:00Z"), batchSize);
      judged += batch.recomputed;
      largest = Math.max(largest, batch.recomputed);
      batches++;
      cursor = batch.cursor;
      if (cursor !== null) cursors.push(cursor);
    } while (cursor !== null && batches < 1000);
    return { judged, batches, cursors, largest };
  }

  const current = async (where: string) =>
    Number(
      (
        await queryRows<{ n: number }>(handle.db, sql.raw(`SELECT count(*)::int AS n FROM memories WHERE expired_at IS NULL AND ${where}`))
      )[0]?.n,
    );

  it.each([7, 40, 41, 1000])("judges each of one user's current memories once, newest first, in batches of %i", async (size) => {
    const pass = await walk({ appId: "walk", userId: "ana" }, size);
    expect(pass.judged).toBe(await current("app_id = 'walk' AND user_id = 'ana'"));
    expect(pass.cursors.every((cursor) => parseDecayCursor(cursor)?.walk === "user")).toBe(true);
  });

  it.each([7, 100, 1000])("judges each current memory of the store once, in storage order, in batches of at most %i", async (size) => {
    const pass = await walk({}, size);
    expect(pass.judged).toBe(await current("TRUE"));
    expect(pass.largest).toBeLessThanOrEqual(size);
    expect(pass.cursors.every((cursor) => parseDecayCursor(cursor)?.walk === "pages")).toBe(true);
    const userOnly = await walk({ userId: "bo" }, size);
    expect(userOnly.judged).toBe(await current("user_id = 'bo'"));
  });

  it("starts again from the beginning when handed a cursor of another shape (an older version's memory id)", async () => {
    const parameters = DecayParametersSchema.parse({});
    const batch = await decayBatch(
      handle.db,
      {},
      parameters,
      "0b6f2b0e-3c1b-4d57-9d43-1f5a3e1c2d4f",
      new Date("2026-03-01T00:00:00Z"),
      100_000,
    );
    expect(batch.recomputed).toBe(await current("TRUE"));
  });
});
