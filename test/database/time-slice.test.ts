import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { ListMemoriesQuerySchema, listMemoriesQuery } from "../../src/memory/read/memory-read.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
  // 20,000 episodes for one user (one per hour, newest now) and 20,000 for others.
  await runtime.database.db.execute(sql`
    INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at)
    SELECT gen_random_uuid(), 'default', CASE WHEN i % 2 = 0 THEN 'slicer' ELSE 'other-' || (i % 50) END, 'episodic', 'turn',
           'episode ' || i, md5(i::text), now() - make_interval(hours => i / 2)
      FROM generate_series(0, 39999) AS i`);
  await runtime.database.db.execute(sql`ANALYZE memories`);
});
afterAll(() => runtime.close());

describe("time-slice episodic retrieval (R4)", () => {
  it("returns the episodes of a window, newest first", async () => {
    const from = new Date(Date.now() - 10.5 * 3_600_000).toISOString();
    const to = new Date(Date.now() - 4.5 * 3_600_000).toISOString();
    const { status, body } = await call(runtime.app, "GET", `/v1/memories?user_id=slicer&type=episodic&from=${from}&to=${to}&limit=100`);
    expect(status).toBe(200);
    expect(body.memories.map((memory: { content: string }) => memory.content)).toEqual([
      "episode 10",
      "episode 12",
      "episode 14",
      "episode 16",
      "episode 18",
      "episode 20",
    ]);
  });

  it("is answered by an index scan, never a sequential scan", async () => {
    const query = ListMemoriesQuerySchema.parse({
      user_id: "slicer",
      type: "episodic",
      from: new Date(Date.now() - 48 * 3_600_000).toISOString(),
      to: new Date(Date.now() - 24 * 3_600_000).toISOString(),
    });
    const plan = (
      await queryRows<{ "QUERY PLAN": string }>(
        runtime.database.db,
        sql`EXPLAIN ${listMemoriesQuery(runtime.database.db, query, new Date())}`,
      )
    )
      .map((row) => row["QUERY PLAN"])
      .join("\n");
    expect(plan).toMatch(/Index Scan using memories_user_valid_idx|Bitmap Index Scan on memories_user_valid_idx/);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
