import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { ManualClock } from "../../src/util/clock.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { QUESTIONS, YEAR } from "../fixtures/year-of-sessions.js";

/**
 * A year on the memory's own clock: one conversation a month through 2025, the scheduled decay
 * every night at 03:00 with the default settings, and then another year of silence. At the end
 * the evidence is still retrievable and every fact says what the user said last.
 */
const DAY = 86_400_000;
const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
let runtime: Runtime;
const eventTexts = new Map<string, string>();
/** What the nightly passes forgot, in order. */
const forgotten: { id: string; type: string; content: string }[] = [];
/** Evidence recall right after the twelfth conversation. */
let fresh = Number.NaN;

beforeAll(async () => {
  runtime = await startTestRuntime({}, { clock });
  // The year itself: every test below reads what it left, so it runs once, before them.
  for (const session of YEAR) {
    const startedAt = new Date(Date.UTC(2025, session.month - 1, 15, 10));
    await nightsUntil(startedAt);
    const sessionId = await createSession(runtime.app, "noa", { started_at: startedAt.toISOString() });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: session.turns.map(([role, content]) => message(role, content)),
    });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "noa");
  }
  fresh = await recall();
}, 1_200_000);
afterAll(() => runtime?.close());

/** Nightly decay passes from the clock's day up to `until` (exclusive), as DECAY_CRON does. */
async function nightsUntil(until: Date): Promise<void> {
  for (let night = nextNight(clock.now()); night < until; night = new Date(night.getTime() + DAY)) {
    clock.set(night);
    const pass = await call(runtime.app, "POST", "/v1/decay/run", { user_id: "noa", dry_run: false });
    expect(pass.status).toBe(200);
    forgotten.push(...(pass.body.forgotten as typeof forgotten));
  }
  clock.set(until);
}

function nextNight(from: Date): Date {
  const night = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), 3));
  return night > from ? night : new Date(night.getTime() + DAY);
}

/** Evidence recall of 2,000-token windows over the questions: the share of evidence turns each window holds. */
async function recall(): Promise<number> {
  const events = await queryRows<{ id: string; content: string }>(
    runtime.database.db,
    sql`SELECT id, content FROM session_events WHERE user_id = 'noa'`,
  );
  for (const event of events) eventTexts.set(event.id, event.content);
  let total = 0;
  for (const { question, evidence } of QUESTIONS) {
    const window = (await call(runtime.app, "POST", "/v1/context", { user_id: "noa", query: question, max_tokens: 2000 })).body;
    const held = new Set(
      (window.sections as { items: { sources: { event_id: string }[] }[] }[]).flatMap((section) =>
        section.items.flatMap((item) => item.sources.map((source) => eventTexts.get(source.event_id) ?? "")),
      ),
    );
    total += evidence.filter((text) => held.has(text)).length / evidence.length;
  }
  return total / QUESTIONS.length;
}

describe("a year of memory on a simulated clock", () => {
  it("lives through twelve monthly conversations with nightly decay in between: the evidence is there", () => {
    expect(fresh).toBeGreaterThan(0.8);
  });

  it("the nightly decay forgot turns, and only turns a summary still quotes", async () => {
    expect(forgotten.length).toBeGreaterThan(0);
    expect(new Set(forgotten.map((memory) => memory.type))).toEqual(new Set(["episodic"]));
    // Each was a turn when it was written, and its history says it was forgotten (the row itself may be purged since).
    const ids = forgotten.map((memory) => memory.id);
    const history = await queryRows<{ memory_id: string; operation: string; subtype: string | null }>(
      runtime.database.db,
      sql`SELECT memory_id, operation, after ->> 'subtype' AS subtype FROM memory_history WHERE memory_id IN ${ids} ORDER BY position`,
    );
    for (const id of ids) {
      const rows = history.filter((row) => row.memory_id === id);
      expect(rows[0], id).toMatchObject({ operation: "ADD", subtype: "turn" });
      expect(rows.map((row) => row.operation)).toContain("DELETE");
    }
  });

  it("a year after the last conversation, keeps ≥ 90% of the evidence recall it had fresh", async () => {
    await nightsUntil(new Date(Date.UTC(2026, 11, 16, 10)));
    // A year unused, retention fell (computed at the simulated clock's now; read before the
    // recall below, whose windows use memories again and so raise theirs at once).
    const retention = await call(runtime.app, "GET", "/v1/memories/retention?user_id=noa");
    expect(retention.body.average).toBeLessThan(0.2);
    const later = await recall();
    // `fresh` was measured by the setup above, never by another test: NaN (no year) fails here too.
    expect(fresh).toBeGreaterThan(0.8);
    expect(later).toBeGreaterThanOrEqual(0.9 * fresh);
  }, 600_000);

  it("every fact says what the user said last, and no trait contradicts them", async () => {
    const facts = (await call(runtime.app, "GET", "/v1/memories?user_id=noa&type=semantic&limit=100")).body.memories as {
      key: string;
      content: string;
    }[];
    const byKey = new Map<string, string[]>();
    for (const fact of facts) byKey.set(fact.key, [...(byKey.get(fact.key) ?? []), fact.content]);
    for (const [key, contents] of byKey) expect(contents, key).toHaveLength(1);
    expect(byKey.get("profile:location")?.[0]).toContain("Porto");
    expect(byKey.get("profile:occupation")?.[0]).toContain("teacher");
    expect(byKey.get("attitude:coffee")?.[0]).toContain("hates");
    const traits = (await call(runtime.app, "GET", "/v1/memories?user_id=noa&type=trait&limit=100")).body.memories as { key: string }[];
    expect(traits.map((trait) => trait.key)).not.toContain("likes:coffee");
    // The January turn about loving coffee reads as superseded whenever it comes back.
    const window = (await call(runtime.app, "POST", "/v1/context", { user_id: "noa", query: "Do I like coffee?", max_tokens: 2000 })).body;
    const items = (window.sections as { items: { text: string }[] }[]).flatMap((section) => section.items);
    expect(items.some((item) => item.text.includes("hates coffee"))).toBe(true);
    for (const item of items.filter((candidate) => candidate.text.includes("I love coffee"))) {
      expect(item.text).toContain("on 2025-06-15 by: User hates coffee.");
    }
  });
});
