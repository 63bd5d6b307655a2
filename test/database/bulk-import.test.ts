import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type GeneratedSession, generateHistory } from "../../bench/generated-history.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { ManualClock } from "../../src/util/clock.js";
import { call, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

const TURN_SPACING_MS = 30_000;
/** Small chunks, so sessions span several replay and reflection chunks (rolling summaries included). */
const SETTINGS = { REPLAY_MAX_EVENTS: "4", REFLECTION_MAX_EVENTS: "4" };

const opened: Runtime[] = [];
afterEach(async () => {
  for (const runtime of opened.splice(0)) await runtime.close();
});

async function post(runtime: Runtime, path: string, body?: unknown): Promise<{ id: string }> {
  const answer = await call<{ id: string }>(runtime.app, "POST", path, body);
  if (answer.status >= 300) throw new Error(`POST ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** One session lived at its date: created, its turns appended in one request, ended at its last turn. */
async function live(runtime: Runtime, clock: ManualClock, user: string, session: GeneratedSession): Promise<void> {
  clock.set(session.startedAt);
  const created = await post(runtime, "/v1/sessions", { user_id: user, started_at: session.startedAt.toISOString() });
  const events = session.turns.map((turn, index) => ({
    type: "message",
    role: turn.role,
    content: turn.content,
    occurred_at: new Date(session.startedAt.getTime() + index * TURN_SPACING_MS).toISOString(),
  }));
  await post(runtime, `/v1/sessions/${created.id}/events`, { events });
  clock.set(new Date(session.startedAt.getTime() + session.turns.length * TURN_SPACING_MS));
  await post(runtime, `/v1/sessions/${created.id}/end`);
}

interface DerivedRow {
  identity: string;
  embedding: number[] | null;
}

/**
 * Everything derived for the user, each memory described without its ids: what it is and says,
 * its times, whether it is current, what superseded it, its sources (session by order, event by
 * seq); its vector beside.
 */
async function derivedMemory(runtime: Runtime, user: string): Promise<DerivedRow[]> {
  const rows = await queryRows<{ identity: string; embedding: string | null }>(
    runtime.database.db,
    sql`WITH ordered AS (SELECT id, row_number() OVER (ORDER BY started_at, id) AS n FROM sessions WHERE user_id = ${user})
        SELECT array_to_string(ARRAY[m.type::text, m.subtype, m.key, m.content, m.value::text, m.confidence::text, m.importance::text,
                 m.version::text, m.valid_at::text, m.invalid_at::text, m.created_at::text, (m.expired_at IS NOT NULL)::text,
                 m.trait_stage::text, m.reinforcement_count::text,
                 (SELECT s.content FROM memories s WHERE s.id = m.superseded_by),
                 (SELECT string_agg(o.n || ':' || ms.seq, ',' ORDER BY o.n, ms.seq)
                    FROM memory_sources ms JOIN ordered o ON o.id = ms.session_id WHERE ms.memory_id = m.id)], ' | ', '-') AS identity,
               m.embedding::text AS embedding
          FROM memories m WHERE m.user_id = ${user}`,
  );
  return rows
    .map((row) => ({ identity: row.identity, embedding: row.embedding ? (JSON.parse(row.embedding) as number[]) : null }))
    .sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : 0));
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] as number) * (b[index] as number);
    normA += (a[index] as number) ** 2;
    normB += (b[index] as number) ** 2;
  }
  return dot / Math.sqrt(normA * normB);
}

describe("a history imported at once", () => {
  it("derives the same memory as the same history lived session by session: turns, summaries, facts, vectors, times", async () => {
    const history = generateHistory({ sessions: 10, turnsPerSession: 6, seed: 11 });
    const start = new Date("2024-02-01T00:00:00Z");

    // Session by session: each one's memory derived (the clock at its end) before the next starts.
    const livedClock = new ManualClock(start);
    const lived = await startTestRuntime(SETTINGS, { clock: livedClock });
    opened.push(lived);
    for (const session of history) {
      await live(lived, livedClock, "lived", session);
      await waitForSettled(lived.app, "lived");
    }

    // At once: every session posted at its date, the memory derived afterwards, stamped at each session's end.
    const bulkClock = new ManualClock(start);
    const bulk = await startTestRuntime(SETTINGS, { clock: bulkClock, deriveAtSessionEnd: true });
    opened.push(bulk);
    for (const session of history) await live(bulk, bulkClock, "bulk", session);
    await waitForSettled(bulk.app, "bulk");

    const expected = await derivedMemory(lived, "lived");
    const actual = await derivedMemory(bulk, "bulk");
    // Turns and summaries of every session, and the facts the history states (a move among them).
    expect(expected.filter((row) => row.identity.startsWith("episodic | turn")).length).toBe(60);
    // The move of the tenth session: the first city superseded by the second, both kept.
    expect(expected.filter((row) => row.identity.startsWith("semantic | profile | profile:location |"))).toHaveLength(2);
    expect(actual.map((row) => row.identity)).toEqual(expected.map((row) => row.identity));
    for (const [index, row] of expected.entries()) {
      const other = actual[index] as DerivedRow;
      expect(other.embedding === null, row.identity).toBe(row.embedding === null);
      if (row.embedding && other.embedding) expect(cosine(row.embedding, other.embedding), row.identity).toBeGreaterThan(0.999);
    }
  }, 600_000);
});
