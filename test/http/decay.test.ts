import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
const ids: Record<string, string> = {};

beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

beforeEach(async () => {
  await runtime.database.db.execute(sql`DELETE FROM memories WHERE user_id = 'zoe'`);
  await runtime.database.db.execute(sql`DELETE FROM memory_sources WHERE session_id = '00000000-0000-4000-8000-00000000000a'`);
  const add = async (name: string, body: Record<string, unknown>) => {
    ids[name] = (await call(runtime.app, "POST", "/v1/memories", { user_id: "zoe", ...body })).body.memory.id;
  };
  await add("stale", { type: "insight", content: "Zoe mentioned the weather once.", importance: 0.2 });
  await add("pinned", { type: "insight", content: "Zoe's wedding anniversary dinner plans.", importance: 0.2 });
  await add("important", { type: "insight", content: "Zoe is afraid of flying.", importance: 0.8 });
  await add("fact", {
    type: "semantic",
    subtype: "profile",
    key: "profile:city",
    value: "Oslo",
    content: "Zoe lives in Oslo.",
    importance: 0.2,
  });
  await add("used", { type: "insight", content: "Zoe likes board game nights.", importance: 0.2 });
  await add("future", { type: "insight", content: "Zoe starts a new job next month.", importance: 0.2 });
  // Two turns: one a kept summary quotes whole (covered), one nothing else carries.
  const [walked, visited] = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];
  ids["covered"] = await insertEpisode(runtime, "turn", "user: I walked the dog in the rain.", walked);
  ids["uncovered"] = await insertEpisode(runtime, "turn", "user: My sister visited last weekend.", visited);
  ids["summary"] = await insertEpisode(runtime, "summary", 'The user said: "I walked the dog in the rain." The assistant agreed.', walked);
  // Everything was written and last used 30 days ago, except as noted.
  await runtime.database.db.execute(
    sql`UPDATE memories SET created_at = now() - interval '30 days', last_accessed_at = now() - interval '30 days', valid_at = now() - interval '30 days' WHERE user_id = 'zoe'`,
  );
  await runtime.database.db.execute(sql`UPDATE memories SET access_count = 5, last_accessed_at = now() WHERE id = ${ids["used"]}`);
  await runtime.database.db.execute(sql`UPDATE memories SET valid_at = now() + interval '20 days' WHERE id = ${ids["future"]}`);
  expect((await call(runtime.app, "PATCH", `/v1/memories/${ids["pinned"]}`, { pinned: true })).body.pinned).toBe(true);
});

/** An episode of zoe's written straight into the table (now, by the database's clock), sourced from one event. */
async function insertEpisode(target: Runtime, subtype: "turn" | "summary", content: string, eventId: string): Promise<string> {
  const result = await target.database.db.execute(sql`
    INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance)
    VALUES (gen_random_uuid(), 'default', 'zoe', 'episodic', ${subtype}, ${content}, md5(${content}), 0.3) RETURNING id`);
  const id = (result as unknown as { rows: { id: string }[] }).rows[0]?.id as string;
  await target.database.db.execute(
    sql`INSERT INTO memory_sources (memory_id, event_id, session_id, seq) VALUES (${id}, ${eventId}::uuid, '00000000-0000-4000-8000-00000000000a', 1)`,
  );
  return id;
}

const decay = (body: Record<string, unknown>) => call(runtime.app, "POST", "/v1/decay/run", { user_id: "zoe", ...body });

describe("decay (R1, R3)", () => {
  it("dry run reports exactly what would go and changes nothing", async () => {
    // Retention is computed when read, so it moves with the clock between two reads: left out.
    const stored = async () => {
      const { body } = await call(runtime.app, "GET", "/v1/memories?user_id=zoe&include_expired=true&limit=50");
      return (body.memories as Record<string, unknown>[]).map(({ retention, ...memory }) => memory);
    };
    const before = await stored();
    const { status, body } = await decay({});
    expect(status).toBe(200);
    expect(body).toMatchObject({ dry_run: true, lambda: 0.1, threshold: 0.1, min_age_days: 7 });
    expect(body.forgotten.map((memory: { id: string }) => memory.id)).toEqual([ids["covered"]]);
    expect(body.forgotten[0].retention).toBeCloseTo(0.2 * Math.exp(-3), 3);
    expect(await stored()).toEqual(before);
  });

  it("ranks everything but forgets only what a kept memory still carries: an old, unimportant turn a summary quotes", async () => {
    const { body } = await decay({ dry_run: false });
    expect(body.forgotten.map((memory: { id: string }) => memory.id)).toEqual([ids["covered"]]);
    expect(body.recomputed).toBe(9);
    const covered = (await call(runtime.app, "GET", `/v1/memories/${ids["covered"]}`)).body;
    expect(covered.expired_at).not.toBeNull();
    const history = (await call(runtime.app, "GET", `/v1/memories/${ids["covered"]}/history`)).body.history;
    expect(history.at(-1)).toMatchObject({ operation: "DELETE", actor: "decay" });
    // Below the threshold too, but nothing else carries them: kept, only ranked lower.
    for (const kept of ["stale", "uncovered", "summary", "pinned", "important", "fact", "used", "future"]) {
      expect((await call(runtime.app, "GET", `/v1/memories/${ids[kept]}`)).body.expired_at).toBeNull();
    }
    // Access raised retention: 5 uses today vs none for 30 days.
    const used = (await call(runtime.app, "GET", `/v1/memories/${ids["used"]}`)).body.retention;
    const important = (await call(runtime.app, "GET", `/v1/memories/${ids["important"]}`)).body.retention;
    expect(used).toBeCloseTo((1 + Math.log(6)) / 5, 3);
    expect(important).toBeCloseTo(0.2 * Math.exp(-3), 3);
    // A second pass finds nothing more.
    expect((await decay({ dry_run: false })).body.forgotten).toEqual([]);
  });

  it("computes retention when it is read: a use raises it at once, time lowers it, with no pass in between", async () => {
    const retention = async () => (await call(runtime.app, "GET", `/v1/memories/${ids["stale"]}`)).body.retention as number;
    // Unused for 30 days, never used: e^−3 / 5.
    expect(await retention()).toBeCloseTo(0.2 * Math.exp(-3), 4);
    const search = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "zoe", query: "weather" });
    expect(search.body.memories.map((memory: { id: string }) => memory.id)).toContain(ids["stale"]);
    await runtime.background.settle();
    // Used once, just now: (1 + ln 2) / 5.
    expect(await retention()).toBeCloseTo((1 + Math.log(2)) / 5, 4);
    // Ten days later (the last use moved back): e^−1 of that.
    await runtime.database.db.execute(sql`UPDATE memories SET last_accessed_at = now() - interval '10 days' WHERE id = ${ids["stale"]}`);
    expect(await retention()).toBeCloseTo((Math.exp(-1) * (1 + Math.log(2))) / 5, 4);
    // The distribution and the health panel read the same values.
    const distribution = (await call(runtime.app, "GET", "/v1/memories/retention?user_id=zoe")).body;
    const health = (await call(runtime.app, "GET", "/v1/memories/health?user_id=zoe")).body;
    expect(distribution.total).toBe(9);
    expect(health.average_retention).toBeCloseTo(distribution.average, 3);
    expect(health.retention_histogram.reduce((sum: number, n: number) => sum + n, 0)).toBe(9);
  });

  it("reports the retention distribution", async () => {
    await decay({ dry_run: false });
    const { body } = await call(runtime.app, "GET", "/v1/memories/retention?user_id=zoe");
    expect(body).toMatchObject({ total: 8, high: 0, medium: 1, low: 7 });
    expect(body.average).toBeGreaterThan(0);
  });

  it("uses presets and refuses invalid parameters without touching data", async () => {
    const sensitive = await decay({ preset: "sensitive" });
    expect(sensitive.body).toMatchObject({ lambda: 0.3, threshold: 0.2 });
    for (const [payload, field] of [
      [{ lambda: -1 }, "body.lambda"],
      [{ threshold: 2 }, "body.threshold"],
      [{ preset: "aggressive" }, "body.preset"],
      [{ min_age_days: -3 }, "body.min_age_days"],
    ] as const) {
      const { status, body } = await decay(payload);
      expect(status).toBe(400);
      expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
    }
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=zoe&limit=50")).body.memories).toHaveLength(9);
  });
});

describe("decay maintenance (R5, C8)", () => {
  it("enforces a per-user quota, the only hard bound, forgetting covered turns first, then the lowest-retention episodes and insights", async () => {
    const dry = await decay({ quota: 6 });
    expect(dry.body.over_quota).toHaveLength(3);
    const { body } = await decay({ dry_run: false, quota: 6, min_age_days: 365 });
    expect(body.forgotten).toEqual([]);
    expect(body.over_quota).toHaveLength(3);
    expect(body.over_quota).toContain(ids["covered"]);
    expect(body.over_quota).not.toContain(ids["pinned"]);
    expect(body.over_quota).not.toContain(ids["fact"]);
    expect(body.over_quota).not.toContain(ids["future"]);
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=zoe&limit=50")).body.memories).toHaveLength(6);
  });

  it("dissolves trends whose window closed unreinforced, and purges forgotten memories after the grace period", async () => {
    const trend = await runtime.database.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, key, trait_stage, reinforcement_count, window_start, window_end, confidence)
      VALUES (gen_random_uuid(), 'default', 'zoe', 'trait', 'behavior', 'Zoe says she often bakes.', 'h1', 'behavior:bake', 'trend', 1, now() - interval '20 days', now() - interval '6 days', 0.3)
      RETURNING id`);
    const trendId = (trend as unknown as { rows: { id: string }[] }).rows[0]?.id as string;
    await decay({ dry_run: false });
    expect((await call(runtime.app, "GET", `/v1/memories/${trendId}`)).body.trait.stage).toBe("dissolved");
    expect((await call(runtime.app, "GET", `/v1/memories/${trendId}/history`)).body.history.at(-1)).toMatchObject({
      operation: "STAGE_CHANGE",
      actor: "decay",
    });

    // The covered turn was forgotten above; 31 days later it is purged, its history kept.
    await runtime.database.db.execute(sql`UPDATE memories SET expired_at = now() - interval '31 days' WHERE id = ${ids["covered"]}`);
    const purge = await decay({ dry_run: false });
    expect(purge.body.purged).toBe(1);
    expect((await call(runtime.app, "GET", `/v1/memories/${ids["covered"]}`)).status).toBe(404);
    const history = await runtime.database.db.execute(
      sql`SELECT count(*)::int AS n FROM memory_history WHERE memory_id = ${ids["covered"]}`,
    );
    expect((history as unknown as { rows: { n: number }[] }).rows[0]?.n).toBeGreaterThan(0);
  });

  it("judges a memory untouched for a year under the sensitive preset, and for months at λ 10, as 0 rather than failing", async () => {
    await runtime.database.db.execute(sql`UPDATE memories SET last_accessed_at = now() - interval '400 days' WHERE id = ${ids["stale"]}`);
    // λ·days: 0.3·400 = 120 (e^−120 underflows a real), 10·400 = 4000 (e^−4000 underflows exp itself).
    for (const parameters of [{ preset: "sensitive" }, { lambda: 10 }]) {
      for (const dryRun of [true, false]) {
        const { status, body } = await decay({ dry_run: dryRun, ...parameters });
        expect(status, JSON.stringify(body)).toBe(200);
      }
    }
    // Read at the scheduled λ (0.1): e^−40 / 5, and the distribution over it answers.
    expect((await call(runtime.app, "GET", `/v1/memories/${ids["stale"]}`)).body.retention).toBeCloseTo(Math.exp(-40) / 5, 20);
    expect((await call(runtime.app, "GET", "/v1/memories/retention?user_id=zoe")).status).toBe(200);
  });

  it("takes fractional days: a minimum age of 29.5 days and a half-day grace period", async () => {
    // Written 30 days ago: old enough at 29.5 days, too young at 30.5 (dry runs).
    expect((await decay({ min_age_days: 30.5 })).body.forgotten).toEqual([]);
    const forgotten = (await decay({ min_age_days: 29.5 })).body.forgotten as { id: string }[];
    expect(forgotten.map((memory) => memory.id)).toEqual([ids["covered"]]);
    await runtime.database.db.execute(sql`UPDATE memories SET expired_at = now() - interval '18 hours' WHERE id = ${ids["stale"]}`);
    expect((await decay({ dry_run: false, purge_after_days: 1 })).body.purged).toBe(0);
    expect((await decay({ dry_run: false, purge_after_days: 0.5 })).body.purged).toBe(1);
    expect((await decay({ purge_after_days: 1.1e-193 })).status).toBe(200);
  });
});

describe("CLOCK_OFFSET", () => {
  it("moves the memory's clock: what was written today is judged, and recorded, 60 days on", async () => {
    const later = await startTestRuntime({ EXECUTOR_ENABLED: "false", CLOCK_OFFSET: "60d" });
    try {
      const event = "00000000-0000-4000-8000-000000000003";
      const turn = await insertEpisode(later, "turn", "user: I repotted the fern.", event);
      await insertEpisode(later, "summary", 'The user said: "I repotted the fern."', event);
      const judged = (body: Record<string, unknown>) => call(later.app, "POST", "/v1/decay/run", { user_id: "zoe", ...body });
      const forgotten = (await judged({})).body.forgotten as { id: string; retention: number }[];
      expect(forgotten.map((memory) => memory.id)).toEqual([turn]);
      expect(forgotten[0]?.retention).toBeCloseTo(0.2 * Math.exp(-6), 3);
      expect((await judged({ min_age_days: 61 })).body.forgotten).toEqual([]);
      const added = (await call(later.app, "POST", "/v1/memories", { user_id: "zoe", type: "insight", content: "Zoe keeps ferns." })).body
        .memory;
      expect(Date.parse(added.created_at) - Date.now()).toBeGreaterThan(59 * 86_400_000);
    } finally {
      await later.close();
    }
  });
});
