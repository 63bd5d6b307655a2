import { randomUUID } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { fuseRankings, type RankedHit } from "../../src/memory/recall/fusion.js";
import { fusedHitsSql } from "../../src/memory/recall/plan/fusion-sql.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/**
 * The fusion of a composed plan (`fusedHitsSql`) against `fuseRankings`, on rankings written here
 * rather than ranked from a corpus, so that each rule is reached: a channel's first hit that
 * scores below the limit, one memory first in two channels, an empty channel, as many heads as
 * half the limit and more, ties in a channel's first rank, and a limit of 0. On both databases.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ LOG_LEVEL: "error" });
});
afterAll(async () => {
  await runtime.close();
});

type Rankings = Record<string, RankedHit[]>;

/**
 * Hits of `ids` ranked in order from 1, turns of `session` at `seq` when given. Each memory is
 * created on the day its id numbers (the ids below open on 1 to 12 in hex), the same in every
 * channel that names it.
 */
function ranking(ids: string[], session?: string, seq?: (index: number) => number): RankedHit[] {
  return ids.map((id, index) => ({
    id,
    session_id: session ?? null,
    turn_seq: session && seq ? seq(index) : null,
    created_at: `2026-01-${String(Number.parseInt(id.slice(0, 8), 16)).padStart(2, "0")} 00:00:00+00`,
    rank: index + 1,
  }));
}

function hitsSql(hits: RankedHit[]): SQL {
  if (hits.length === 0)
    return sql`(SELECT NULL::uuid AS id, NULL::uuid AS session_id, NULL::int AS turn_seq, NULL::timestamptz AS created_at, NULL::int AS rank,
                       NULL::float8 AS similarity, NULL::float8 AS coverage, NULL::text AS via WHERE false)`;
  const rows = hits.map(
    (hit) =>
      sql`(${hit.id}::uuid, ${hit.session_id}::uuid, ${hit.turn_seq}::int, ${hit.created_at}::timestamptz, ${hit.rank}::int, NULL::float8, NULL::float8, NULL::text)`,
  );
  return sql`(SELECT * FROM (VALUES ${sql.join(rows, sql`, `)}) AS h(id, session_id, turn_seq, created_at, rank, similarity, coverage, via))`;
}

async function fusedInSql(rankings: Rankings, neighbourWeight: number, limit: number): Promise<string[]> {
  const relations = fusedHitsSql(
    Object.entries(rankings).map(([channel, hits]) => ({ channel, hits: hitsSql(hits) })),
    neighbourWeight,
    limit,
  );
  const rows = await queryRows<{ id: string }>(
    runtime.database.db,
    sql`WITH ${sql.join(relations, sql`,\n`)} SELECT id::text AS id FROM recall_best ORDER BY position`,
  );
  return rows.map((row) => row.id);
}

const bothWays = async (rankings: Rankings, neighbourWeight: number, limit: number) => ({
  inProcess: fuseRankings(rankings, neighbourWeight, limit).map((hit) => hit.id),
  inSql: await fusedInSql(rankings, neighbourWeight, limit),
});

describe("fusion in one statement and in the process", () => {
  // Ids that sort as the letters do, so that a tie is broken the same way on both sides.
  const ids = Array.from(
    { length: 12 },
    (_, index) => `${(index + 1).toString(16).padStart(8, "0")}-0000-4000-8000-${randomUUID().slice(-12)}`,
  );
  const [alone, ...paired] = ids as [string, ...string[]];
  const session = randomUUID();
  const seq = (index: number) => index + 1;

  it("keeps a channel's first hit found by it alone, below every hit both channels found, in place of the last", async () => {
    const rankings = {
      vector: [...ranking([alone]), ...ranking(paired.slice(0, 8), session, seq).map((hit) => ({ ...hit, rank: hit.rank + 1 }))],
      text: ranking(paired.slice(0, 8), session, seq),
    };
    const { inProcess, inSql } = await bothWays(rankings, 0.5, 6);
    expect(inSql).toEqual(inProcess);
    expect(inProcess).toHaveLength(6);
    expect(inProcess.at(-1)).toBe(alone);
    // Without the rule the first six by score are all turns both channels found.
    expect(inProcess.slice(0, 5).every((id) => paired.includes(id))).toBe(true);
  });

  it("counts a memory first in two channels once, and reads an empty channel as none", async () => {
    const rankings = { vector: ranking([alone, ...paired.slice(0, 5)]), text: ranking([alone, ...paired.slice(5, 9)]), kind: [] };
    for (const limit of [0, 1, 2, 3, 4, 8]) {
      const { inProcess, inSql } = await bothWays(rankings, 0, limit);
      expect(inSql).toEqual(inProcess);
      expect(inProcess).toHaveLength(Math.min(limit, 10));
    }
  });

  it("falls back to the best by score when the heads would be more than half the limit", async () => {
    const third = paired.slice(6, 9);
    const rankings = {
      vector: ranking(paired.slice(0, 6), session, seq),
      text: ranking(paired.slice(0, 6), session, seq),
      graph: ranking([alone, ...third]),
    };
    for (const limit of [2, 3, 4, 5, 6, 7]) {
      const { inProcess, inSql } = await bothWays(rankings, 0.5, limit);
      expect(inSql).toEqual(inProcess);
      // Two heads (the pairs' first is both channels' first): kept from a limit of four.
      expect(inProcess.includes(alone)).toBe(limit >= 4);
    }
  });

  it("takes the lowest id of a channel's equal first ranks on both sides", async () => {
    const tied = ranking(paired.slice(0, 8), session, seq);
    const rankings = {
      vector: tied,
      text: [
        { ...(ranking([ids[11] as string])[0] as RankedHit), rank: 1 },
        { ...(ranking([alone])[0] as RankedHit), rank: 1 },
      ],
    };
    const { inProcess, inSql } = await bothWays(rankings, 0.5, 4);
    expect(inSql).toEqual(inProcess);
    expect(inProcess).toContain(alone);
  });
});
