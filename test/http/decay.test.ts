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
  // Everything was written and last used 30 days ago, except as noted.
  await runtime.database.db.execute(
    sql`UPDATE memories SET created_at = now() - interval '30 days', last_accessed_at = now() - interval '30 days', valid_at = now() - interval '30 days' WHERE user_id = 'zoe'`,
  );
  await runtime.database.db.execute(sql`UPDATE memories SET access_count = 5, last_accessed_at = now() WHERE id = ${ids["used"]}`);
  await runtime.database.db.execute(sql`UPDATE memories SET valid_at = now() + interval '20 days' WHERE id = ${ids["future"]}`);
  expect((await call(runtime.app, "PATCH", `/v1/memories/${ids["pinned"]}`, { pinned: true })).body.pinned).toBe(true);
});

const decay = (body: Record<string, unknown>) => call(runtime.app, "POST", "/v1/decay/run", { user_id: "zoe", ...body });

describe("decay (R1, R3)", () => {
  it("dry run reports exactly what would go and changes nothing", async () => {
    const before = await call(runtime.app, "GET", "/v1/memories?user_id=zoe&include_expired=true&limit=50");
    const { status, body } = await decay({});
    expect(status).toBe(200);
    expect(body).toMatchObject({ dry_run: true, lambda: 0.1, threshold: 0.1, min_age_days: 7 });
    expect(body.forgotten.map((memory: { id: string }) => memory.id)).toEqual([ids["stale"]]);
    expect(body.forgotten[0].retention).toBeCloseTo(0.2 * Math.exp(-3), 3);
    expect(await call(runtime.app, "GET", "/v1/memories?user_id=zoe&include_expired=true&limit=50")).toEqual(before);
  });

  it("forgets only old, unimportant, unpinned, already-valid episodes and insights, with history", async () => {
    const { body } = await decay({ dry_run: false });
    expect(body.forgotten.map((memory: { id: string }) => memory.id)).toEqual([ids["stale"]]);
    expect(body.recomputed).toBe(6);
    const stale = (await call(runtime.app, "GET", `/v1/memories/${ids["stale"]}`)).body;
    expect(stale.expired_at).not.toBeNull();
    const history = (await call(runtime.app, "GET", `/v1/memories/${ids["stale"]}/history`)).body.history;
    expect(history.at(-1)).toMatchObject({ operation: "DELETE", actor: "decay" });
    for (const kept of ["pinned", "important", "fact", "used", "future"]) {
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

  it("reports the retention distribution", async () => {
    await decay({ dry_run: false });
    const { body } = await call(runtime.app, "GET", "/v1/memories/retention?user_id=zoe");
    expect(body).toMatchObject({ total: 5, high: 0, medium: 1, low: 4 });
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
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=zoe&limit=50")).body.memories).toHaveLength(6);
  });
});

describe("decay maintenance (R5, C8)", () => {
  it("enforces a per-user quota by forgetting the lowest-retention episodes and insights", async () => {
    const dry = await decay({ quota: 4 });
    expect(dry.body.over_quota).toHaveLength(2);
    const { body } = await decay({ dry_run: false, quota: 4, min_age_days: 365 });
    expect(body.forgotten).toEqual([]);
    expect(body.over_quota).toHaveLength(2);
    expect(body.over_quota).not.toContain(ids["pinned"]);
    expect(body.over_quota).not.toContain(ids["fact"]);
    expect(body.over_quota).not.toContain(ids["future"]);
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=zoe&limit=50")).body.memories).toHaveLength(4);
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

    // The stale insight was forgotten above; 31 days later it is purged, its history kept.
    await runtime.database.db.execute(sql`UPDATE memories SET expired_at = now() - interval '31 days' WHERE id = ${ids["stale"]}`);
    const purge = await decay({ dry_run: false });
    expect(purge.body.purged).toBe(1);
    expect((await call(runtime.app, "GET", `/v1/memories/${ids["stale"]}`)).status).toBe(404);
    const history = await runtime.database.db.execute(sql`SELECT count(*)::int AS n FROM memory_history WHERE memory_id = ${ids["stale"]}`);
    expect((history as unknown as { rows: { n: number }[] }).rows[0]?.n).toBeGreaterThan(0);
  });
});
