import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { resetDerivedMemory } from "../../src/pipeline/rebuild.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import { type LanguageModel, ProviderError } from "../../src/providers/types.js";
import { endSession } from "../../src/sessions/session-store.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

const opened: Runtime[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
});

/** The sweep every second, for anything quiet for a second. */
const SWEEPING = { SWEEP_CRON: "* * * * * *", SWEEP_MIN_AGE: "1s" };

async function start(env: Record<string, string>, llm?: LanguageModel): Promise<Runtime> {
  const runtime = await startTestRuntime(env, llm ? { providers: { llm } } : {});
  opened.push(runtime);
  return runtime;
}

/** A summariser that fails with `failure` while `broken` is set, counting its calls. */
function breakable(failure: () => ProviderError) {
  const state = { broken: true, calls: 0 };
  const llm: LanguageModel = {
    id: "breakable-model",
    async summarize(request) {
      state.calls++;
      if (state.broken) throw failure();
      return offlineLanguageModel.summarize(request);
    },
    extract: offlineLanguageModel.extract,
  };
  return { llm, state };
}

const status = async (runtime: Runtime, userId: string) => (await call(runtime.app, "GET", `/v1/pipeline/status?user_id=${userId}`)).body;

describe("dead letters", () => {
  it("parks a session whose replay can never succeed, stops paying for it, and runs it again on request", async () => {
    const { llm, state } = breakable(() => new ProviderError("400 invalid argument", false));
    const runtime = await start(SWEEPING, llm);
    const sessionId = await createSession(runtime.app, "parked");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "My favourite city is Kyoto.")] });
    await waitUntil(async () => (await status(runtime, "parked")).parked.length > 0, "the replay to be parked");
    const parked = await status(runtime, "parked");
    expect(parked).toMatchObject({ settled: false, backlog: { unreplayed_events: 1 } });
    expect(parked.parked).toEqual([
      expect.objectContaining({
        stage: "replay",
        session_id: sessionId,
        attempts: 1,
        error: expect.stringContaining("400 invalid argument"),
      }),
    ]);
    await expect(waitForSettled(runtime.app, "parked")).rejects.toThrow(/parked/);

    // Sweeps come and go (one a second); none re-sends the parked session, so no LLM call is paid.
    const callsWhenParked = state.calls;
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(state.calls).toBe(callsWhenParked);

    state.broken = false;
    const retried = await call(runtime.app, "POST", "/v1/pipeline/retry", { user_id: "parked" });
    expect(retried).toMatchObject({ status: 202, body: { retried: { replay: [sessionId], reflection: [], embedding: false } } });
    await waitForSettled(runtime.app, "parked");
    const summaries = (await call(runtime.app, "GET", "/v1/memories?user_id=parked&subtype=summary")).body.memories;
    expect(summaries).toHaveLength(1);
    expect((await status(runtime, "parked")).parked).toEqual([]);
  });

  it("parks after PIPELINE_MAX_FAILURES failed runs of a retryable error, each run retried first; jobs show the failures", async () => {
    const { llm, state } = breakable(() => new ProviderError("503 service unavailable", true));
    const runtime = await start({ ...SWEEPING, PIPELINE_MAX_FAILURES: "2" }, llm);
    const sessionId = await createSession(runtime.app, "flaky");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I am learning to sail.")] });
    await waitUntil(async () => (await status(runtime, "flaky")).parked.length > 0, "the replay to be parked");
    const { parked } = await status(runtime, "flaky");
    expect(parked).toEqual([expect.objectContaining({ stage: "replay", session_id: sessionId, attempts: 2 })]);
    // Runs the sweep sent while an earlier one waited between attempts may still be finishing; once
    // nothing runs, every run made its 1 + 4 attempts, at least two runs failed, and then the
    // spending stops: parked, the stage is neither re-sent nor run.
    await waitUntil(async () => {
      const now = await status(runtime, "flaky");
      return now.queued === 0 && now.running === 0;
    }, "the runs in flight to finish");
    const calls = state.calls;
    expect(calls % 5).toBe(0);
    expect(calls).toBeGreaterThanOrEqual(10);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(state.calls).toBe(calls);
    const jobs = (await call(runtime.app, "GET", `/v1/pipeline/jobs?user_id=flaky&status=failed`)).body.jobs;
    expect(jobs).toHaveLength(calls / 5);
    expect(jobs[0].error).toContain("503 service unavailable");
  });

  it("a success clears the failure count", async () => {
    const { llm, state } = breakable(() => new ProviderError("503 service unavailable", true));
    const runtime = await start({ ...SWEEPING, PIPELINE_MAX_FAILURES: "3" }, llm);
    const sessionId = await createSession(runtime.app, "recovers");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I play the lute.")] });
    const failures = () =>
      queryRows<{ attempts: number }>(runtime.database.db, sql`SELECT attempts FROM pipeline_failures WHERE user_id = 'recovers'`);
    await waitUntil(async () => (await failures()).length > 0, "a failed run to be counted");
    state.broken = false;
    await waitForSettled(runtime.app, "recovers");
    expect(await failures()).toEqual([]);
  });
});

describe("the sweep finds every derivable backlog", () => {
  it("reflects an ended session whose session-ended event was lost; settled waits for it", async () => {
    const runtime = await start({ ...SWEEPING, SWEEP_MIN_AGE: "3s" });
    const sessionId = await createSession(runtime.app, "lost-end");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I love sailing.")] });
    await waitForSettled(runtime.app, "lost-end");
    // Ended in the database only, as if the process died before emitting.
    await endSession(runtime.database.db, sessionId, new Date());
    const before = await status(runtime, "lost-end");
    expect(before).toMatchObject({ settled: false, backlog: { unreflected_events: 1 } });
    await waitForSettled(runtime.app, "lost-end");
    const facts = (await call(runtime.app, "GET", "/v1/memories?user_id=lost-end&type=semantic")).body.memories;
    expect(facts.map((fact: { content: string }) => fact.content)).toEqual(["User loves sailing."]);
  });

  it("finishes a rebuild whose events were lost", async () => {
    const runtime = await start(SWEEPING);
    const sessionId = await createSession(runtime.app, "lost-rebuild");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I love sailing."), message("user", "I live in Faro.")],
    });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "lost-rebuild");
    const current = async () =>
      ((await call(runtime.app, "GET", "/v1/memories?user_id=lost-rebuild&limit=100")).body.memories as { content: string }[])
        .map((memory) => memory.content)
        .sort();
    const derived = await current();
    // The reset commits; the events that would start the re-derivation never leave the process.
    await resetDerivedMemory(runtime.database.db, { appId: "default", userId: "lost-rebuild" });
    expect(await current()).toEqual([]);
    expect((await status(runtime, "lost-rebuild")).settled).toBe(false);
    await waitForSettled(runtime.app, "lost-rebuild");
    expect(await current()).toEqual(derived);
  });
});
