import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { queryRows } from "../../src/db/database.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import { type LanguageModel, ProviderError } from "../../src/providers/types.js";
import { appendEvents } from "../../src/sessions/event-log.js";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime, testEnv, waitForSettled } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

const opened: Runtime[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
});

async function start(env: Record<string, string>, llm?: LanguageModel) {
  const runtime = await startTestRuntime(env, llm ? { providers: { llm } } : {});
  opened.push(runtime);
  return runtime;
}

function failingThen(failures: ProviderError[]): LanguageModel & { calls: number } {
  const model = {
    id: "flaky-test-model",
    calls: 0,
    async summarize(request: Parameters<LanguageModel["summarize"]>[0]) {
      const failure = failures[model.calls++];
      if (failure) throw failure;
      return offlineLanguageModel.summarize(request);
    },
    extract: offlineLanguageModel.extract,
  };
  return model;
}

const count = async (runtime: Runtime, query: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number }>(runtime.database.db, query))[0]?.n);

describe("fast replay under faults", () => {
  it("retries provider errors and stores the summary exactly once", async () => {
    const llm = failingThen([new ProviderError("503 from provider", true), new ProviderError("socket hang up", true)]);
    const runtime = await start({}, llm);
    const sessionId = await createSession(runtime.app, "retry-user");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I have decided to learn the cello this year.")],
    });
    await waitForSettled(runtime.app, "retry-user");
    expect(llm.calls).toBe(3);
    expect(await count(runtime, sql`SELECT count(*)::int AS n FROM memories WHERE user_id = 'retry-user' AND subtype = 'summary'`)).toBe(1);
    expect(
      await count(runtime, sql`SELECT count(*)::int AS n FROM consolidation_jobs WHERE user_id = 'retry-user' AND status = 'completed'`),
    ).toBe(1);
  });

  it("fails the run on a non-retryable provider error, records the job error, parks the session and leaves the watermark", async () => {
    const llm = failingThen([new ProviderError("400 invalid argument", false)]);
    const runtime = await start({}, llm);
    const sessionId = await createSession(runtime.app, "broken-user");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "My favourite city is Kyoto.")] });
    const status = async () => (await call(runtime.app, "GET", "/v1/pipeline/status?user_id=broken-user")).body;
    await waitUntil(async () => (await status()).failed > 0, "the run to fail");
    expect(await status()).toMatchObject({
      failed: 1,
      settled: false,
      backlog: { unreplayed_events: 1 },
      parked: [{ stage: "replay", session_id: sessionId }],
    });
    expect(llm.calls).toBe(1);
    const jobs = await queryRows<{ status: string; error: string }>(
      runtime.database.db,
      sql`SELECT status, error FROM consolidation_jobs WHERE user_id = 'broken-user'`,
    );
    expect(jobs).toEqual([{ status: "failed", error: expect.stringContaining("400 invalid argument") }]);
    expect((await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body.replayed_seq).toBe(0);
  });

  it("replays events whose emit was lost, through the scheduled sweep", async () => {
    const runtime = await start({ SWEEP_CRON: "* * * * * *", SWEEP_MIN_AGE: "0s" });
    const sessionId = await createSession(runtime.app, "lost-emit");
    // Committed straight to the log, as if the process died before emitting the event.
    await appendEvents(
      runtime.database.db,
      o200kTokenizer,
      sessionId,
      [message("user", "Remember my anniversary is on June 12th.")],
      new Date(),
    );
    await waitForSettled(runtime.app, "lost-emit");
    const memories = (await call(runtime.app, "GET", "/v1/memories?user_id=lost-emit&subtype=summary")).body.memories;
    expect(memories).toHaveLength(1);
    expect(memories[0].content).toContain("June 12th");
  });
});

describe("deep reflection under faults", () => {
  it("retries failed and rate-limited extraction and applies the result exactly once", async () => {
    let calls = 0;
    const llm: LanguageModel = {
      id: "flaky-extractor",
      summarize: offlineLanguageModel.summarize,
      extract: async (request) => {
        calls++;
        if (calls === 1) throw new ProviderError("429 quota", true, 20);
        if (calls === 2) throw new ProviderError("extraction output is not JSON: Unexpected token", true);
        return offlineLanguageModel.extract(request);
      },
    };
    const runtime = await start({}, llm);
    const sessionId = await createSession(runtime.app, "extract-retry");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I love sailing.")] });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "extract-retry");
    expect(calls).toBe(3);
    const facts = (await call(runtime.app, "GET", "/v1/memories?user_id=extract-retry&type=semantic")).body.memories;
    expect(facts.map((fact: { content: string }) => fact.content)).toEqual(["User loves sailing."]);
    const jobs = (await call(runtime.app, "GET", "/v1/pipeline/jobs?user_id=extract-retry")).body.jobs;
    expect(
      jobs.filter((job: { job_type: string }) => job.job_type === "deep_reflection").map((job: { status: string }) => job.status),
    ).toEqual(["completed"]);
  });
});

describe("restart in the middle of a run", () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
    await database?.drop();
  });

  it("resumes the fast replay from its memoized steps after the process restarts", async () => {
    database = await freshDatabase({ persistent: true });
    let summarizeStarted = false;
    const hanging: LanguageModel = {
      id: "hanging-model",
      summarize: () => {
        summarizeStarted = true;
        return new Promise<never>(() => undefined);
      },
      extract: offlineLanguageModel.extract,
    };
    const first = await startRuntime(testEnv(database.env), { providers: { llm: hanging } });
    const sessionId = await createSession(first.app, "restart-user");
    await call(first.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I am training for the Berlin marathon in September.")],
    });
    await waitUntil(() => summarizeStarted, "the summary to start");
    // Crash: stop without waiting for the run in flight, then close the database files.
    const crashedAt = new Date();
    await first.executor?.stop({ waitForRuns: false });
    await first.database.close();

    const second = await startRuntime(testEnv(database.env));
    opened.push(second);
    await waitForSettled(second.app, "restart-user");
    const memories = (await call(second.app, "GET", "/v1/memories?user_id=restart-user&subtype=summary")).body.memories;
    expect(memories).toHaveLength(1);
    expect(memories[0].content).toContain("Berlin marathon");
    const runs = await queryRows<{ status: string; load_step_at: string }>(
      second.database.db,
      sql`SELECT r.status, (SELECT s.created_at FROM executor_steps s WHERE s.run_id = r.id AND s.name = 'load-backlog-0') AS load_step_at
            FROM executor_runs r WHERE r.function_id LIKE '%fast-replay'`,
    );
    // One run, resumed rather than restarted: its first step kept the result memoized before the crash.
    expect(runs).toHaveLength(1);
    expect(runs[0]?.status).toBe("completed");
    expect(new Date(runs[0]?.load_step_at as string).getTime()).toBeLessThan(crashedAt.getTime());
    expect(await count(second, sql`SELECT count(*)::int AS n FROM consolidation_jobs WHERE user_id = 'restart-user'`)).toBe(1);
  });
});
