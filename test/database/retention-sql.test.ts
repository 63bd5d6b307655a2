import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/database.js";
import { currentRetention, type RetentionInputs, retentionSql } from "../../src/memory/lifecycle/retention.js";
import { oneConnectionDatabase } from "../fixtures/database.js";

const DAY = 86_400_000;

describe("retention read in SQL and in TypeScript", () => {
  let database: Awaited<ReturnType<typeof oneConnectionDatabase>>;
  beforeAll(async () => {
    database = await oneConnectionDatabase();
  });
  afterAll(() => database.close());

  it("is the same number for episodes and for traits of every subtype, reinforced or not, up to the decayed-away cut-off", async () => {
    const now = new Date("2026-06-01T12:00:00.000Z");
    const memories: RetentionInputs[] = [];
    for (const [type, subtype] of [
      ["episodic", "turn"],
      ["semantic", null],
      ["trait", "behavior"],
      ["trait", "preference"],
      ["trait", "core"],
      ["trait", "unheard-of"],
    ] as const)
      for (const days of [0, 0.5, 3, 30, 400, 5_000])
        for (const accessCount of [0, 3, 100])
          for (const reinforcementCount of [0, 5])
            memories.push({ type, subtype, accessCount, reinforcementCount, lastAccessedAt: new Date(now.getTime() - days * DAY) });
    // A future access (a clock set back) counts as now, in both.
    memories.push({
      type: "episodic",
      subtype: null,
      accessCount: 1,
      reinforcementCount: 0,
      lastAccessedAt: new Date(now.getTime() + DAY),
    });
    const rows = JSON.stringify(
      memories.map((m, n) => ({
        n,
        type: m.type,
        subtype: m.subtype,
        access_count: m.accessCount,
        reinforcement_count: m.reinforcementCount,
        last_accessed_at: m.lastAccessedAt.toISOString(),
      })),
    );
    for (const lambda of [0.02, 0.1, 0.3, 10]) {
      const read = await queryRows<{ retention: number }>(
        database.handle.db,
        sql`SELECT (${retentionSql(lambda, sql`${now.toISOString()}::timestamptz`)})::float8 AS retention
              FROM jsonb_to_recordset(${rows}::jsonb)
                AS m(n int, type text, subtype text, access_count int, reinforcement_count int, last_accessed_at timestamptz)
             ORDER BY n`,
      );
      const expected = memories.map((memory) => currentRetention(memory, { lambda, now }));
      expect(read).toHaveLength(expected.length);
      for (const [i, row] of read.entries()) expect(Number(row.retention)).toBeCloseTo(expected[i] as number, 12);
      // Both sides of the cut-off are in the cases: some decayed away entirely, some still above zero.
      if (lambda === 10) expect(expected.filter((value) => value === 0).length).toBeGreaterThan(0);
    }
  });
});
