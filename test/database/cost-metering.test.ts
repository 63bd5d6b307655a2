import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { connectDatabase } from "../../src/db/connect.js";
import { lockUser } from "../../src/memory/user-lock.js";
import { ManualClock } from "../../src/util/clock.js";
import { freshDatabase, onPostgres } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

type UsageDay = { day: string; stage: string; provider: string; model: string; calls: number; input_tokens: number; output_tokens: number };
type Usage = {
  totals: { calls: number; input_tokens: number; output_tokens: number };
  days: UsageDay[];
  budget: { daily_tokens: number | null; spent_today: number | null; reflection_parked: boolean };
};

const opened: Runtime[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
});

async function converse(runtime: Runtime, userId: string): Promise<string> {
  const sessionId = await createSession(runtime.app, userId);
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: [
      message("user", "I moved to Porto last spring and I teach chemistry at a high school."),
      message("assistant", "Porto is lovely. How is teaching going?"),
      message("user", "I love it, and on weekends I go sailing with my sister Inês."),
    ],
  });
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  return sessionId;
}

describe("cost metering", () => {
  it("records every provider call by stage, provider and model, per app and user, and reports it over a date range", async () => {
    const runtime = await startTestRuntime({ REFLECTION_IMPORTANCE_THRESHOLD: "1" });
    opened.push(runtime);
    await converse(runtime, "marta");
    await waitForSettled(runtime.app, "marta");
    await call(runtime.app, "POST", "/v1/memories/search", { user_id: "marta", query: "where does she live?" });
    await call(runtime.app, "POST", "/v1/context", { user_id: "marta", query: "weekend plans", max_tokens: 600 });
    await call(runtime.app, "POST", "/v1/memories", { user_id: "marta", type: "insight", content: "Marta prefers mornings." });
    await converse(runtime, "other-user");

    await waitUntil(async () => {
      const usage = (await call<Usage>(runtime.app, "GET", "/v1/usage?user_id=marta")).body;
      return ["replay", "reflection", "query", "write"].every((stage) => usage.days.some((day) => day.stage === stage));
    }, "marta's usage in every stage she caused");
    const usage = (await call<Usage>(runtime.app, "GET", "/v1/usage?user_id=marta")).body;
    const today = new Date().toISOString().slice(0, 10);
    for (const day of usage.days) {
      expect(day.day).toBe(today);
      expect(day.provider).toBe("offline");
      expect(day.calls).toBeGreaterThan(0);
      expect(day.input_tokens).toBeGreaterThan(0);
    }
    const llmStages = usage.days.filter((day) => day.stage === "replay" || day.stage === "reflection");
    expect(llmStages.some((day) => day.model === runtime.providers.llm.id && day.output_tokens > 0)).toBe(true);
    const queries = usage.days.find((day) => day.stage === "query" && day.model === runtime.providers.embedder.model);
    expect(queries?.calls).toBe(2);
    expect(queries?.output_tokens).toBe(0);
    expect(usage.budget).toEqual({ daily_tokens: null, spent_today: null, reflection_parked: false });

    // The app's total holds both users; a range before today holds nothing; a reversed range is refused.
    await waitForSettled(runtime.app, "other-user");
    const app = (await call<Usage>(runtime.app, "GET", "/v1/usage")).body;
    expect(app.totals.input_tokens).toBeGreaterThan(usage.totals.input_tokens);
    const before = (await call<Usage>(runtime.app, "GET", "/v1/usage?from=2020-01-01&to=2020-12-31")).body;
    expect(before.days).toEqual([]);
    const reversed = await call(runtime.app, "GET", "/v1/usage?from=2026-02-01&to=2026-01-01");
    expect(reversed.status).toBe(400);
    expect(JSON.stringify(reversed.body)).toContain("from");

    // Erasure takes the user's usage rows with everything else.
    expect((await call(runtime.app, "DELETE", "/v1/users/marta")).body.erased.usage_rows).toBeGreaterThan(0);
    expect((await call<Usage>(runtime.app, "GET", "/v1/usage?user_id=marta")).body.days).toEqual([]);
  });

  it("parks deep reflection until the next day once the app's daily token budget is spent, and then resumes", async () => {
    const clock = new ManualClock(new Date("2026-03-10T09:00:00Z"));
    const runtime = await startTestRuntime(
      { DAILY_TOKEN_BUDGET: "10", REFLECTION_IMPORTANCE_THRESHOLD: "1", SWEEP_CRON: "* * * * * *", SWEEP_MIN_AGE: "1s" },
      { clock },
    );
    opened.push(runtime);
    // Queries spend the day's budget; from then on reflection parks (replay does not: summaries keep
    // the window current, and they are the cheap stage).
    for (const query of ["what does she teach?", "where does she live?", "who is her sister?"])
      await call(runtime.app, "POST", "/v1/memories/search", { user_id: "budgeted", query });
    const status = (await call(runtime.app, "GET", "/v1/pipeline/status?user_id=budgeted")).body;
    expect(status.budget).toMatchObject({ daily_tokens: 10, reflection_parked: true });
    const sessionId = await converse(runtime, "budgeted");
    await waitUntil(async () => (await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body.replayed_seq === 3, "replay to finish");
    // Several sweeps later (one a second), still nothing reflected: parked, not failed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body.reflected_seq).toBe(0);
    const usage = (await call<Usage>(runtime.app, "GET", "/v1/usage?from=2026-03-10&to=2026-03-10")).body;
    expect(usage.days.some((day) => day.stage === "reflection")).toBe(false);
    expect(usage.budget.spent_today).toBeGreaterThanOrEqual(10);

    // The embedding backfill of the day's episodes counts against the budget of the day it runs on:
    // let it finish today, or on a slow machine it spends tomorrow's 10 tokens before reflection runs.
    await waitUntil(async () => {
      const progress = (await call(runtime.app, "GET", "/v1/pipeline/status?user_id=budgeted")).body;
      return progress.backlog.unembedded_memories === 0 && progress.running === 0 && progress.queued === 0;
    }, "the day's embedding backfill");
    clock.set(new Date("2026-03-11T00:05:00Z"));
    await waitForSettled(runtime.app, "budgeted", 20_000).catch(async (e) => {
      throw new Error(String(e) + JSON.stringify((await call(runtime.app, "GET", "/v1/usage?from=2026-03-09&to=2026-03-12")).body));
    });
    expect((await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body.reflected_seq).toBe(3);
    const nextDay = (await call<Usage>(runtime.app, "GET", "/v1/usage?from=2026-03-11&to=2026-03-11")).body;
    expect(nextDay.days.some((day) => day.stage === "reflection")).toBe(true);
  });

  it.runIf(onPostgres)(
    "a query's usage is recorded after its answer: a search is not held up by the metering write, which lands once it can",
    async () => {
      const database = await freshDatabase();
      const runtime = await startTestRuntime(database.env);
      await createSession(runtime.app, "waiting");
      const queryCalls = async () =>
        (await call<Usage>(runtime.app, "GET", "/v1/usage?user_id=waiting")).body.days.filter((day) => day.stage === "query").length;
      // Another writer of the user holds their lock: metering (which takes it) must wait, the search must not.
      const other = await connectDatabase({ url: database.url as string, poolMax: 1 });
      let release = () => undefined as void;
      let locked = () => undefined as void;
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holding = other.db.transaction(async (tx) => {
        await lockUser(tx, "default", "waiting");
        locked();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      try {
        await lockTaken;
        const answer = await Promise.race([
          call(runtime.app, "POST", "/v1/memories/search", { user_id: "waiting", query: "where does she live?" }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the search waited for the metering write")), 10_000)),
        ]);
        expect(answer.status).toBe(200);
        expect(await queryCalls()).toBe(0);
      } finally {
        release();
        await holding;
        await other.close();
      }
      try {
        await waitUntil(async () => (await queryCalls()) === 1, "the query's usage, once the lock is free");
      } finally {
        await runtime.close();
        await database.drop();
      }
    },
  );
});
