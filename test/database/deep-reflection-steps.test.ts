import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { NonRetriableError } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { pipelineSettings } from "../../functions/settings.js";
import { createPipelineClient, type PipelineSettings } from "../../inngest/client.js";
import { createDeepReflection } from "../../inngest/functions/deep-reflection.js";
import { queryRows } from "../../src/db/database.js";
import { releaseFailures } from "../../src/pipeline/failures.js";
import { systemClock } from "../../src/util/clock.js";
import { functionTestEngine } from "../fixtures/function-test-engine.js";
import { call, createSession, message, startTestRuntime, testEnv } from "../fixtures/runtime.js";

/**
 * Deep reflection as a function, step by step (`@inngest/test`): the steps that would call a model,
 * send an event or stand for a long backlog are mocked by id; the bookkeeping steps (is the session
 * parked, load the chunk and start its job, record a failure) run against this pass's database,
 * PGlite or a real Postgres. No executor runs (`EXECUTOR_ENABLED=false`): each test drives one run
 * at a time, without retries. The same function under the executor, retries and sweep included:
 * `dead-letters.test.ts`, `reflection.test.ts`.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

/** The function on a client whose injected dependencies are this runtime's, with `settings` over the test defaults. */
function deepReflection(settings: Partial<PipelineSettings> = {}) {
  const deps = {
    db: runtime.database.db,
    clock: systemClock,
    llm: runtime.providers.llm,
    embedder: runtime.providers.embedder,
    settings: { ...pipelineSettings(testEnv()), ...settings },
  };
  // The SDK's own lines about the failures these tests cause on purpose stay out of the output.
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  // The function a session's end starts (the other one, debounced, serves reflection requests).
  const [, ended] = createDeepReflection(createPipelineClient({ mode: "embedded", logger: quiet }, deps), { reflectionDebounce: "1s" });
  return ended as NonNullable<typeof ended>;
}

/** The end of a session of `userId`, as the trigger event; the session's log holds the user's sentences (none: a session that is not stored). */
async function sessionEnd(userId: string, ...sentences: string[]) {
  const sessionId = sentences.length === 0 ? randomUUID() : await createSession(runtime.app, userId);
  if (sentences.length > 0)
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: sentences.map((text) => message("user", text)) });
  const event = {
    name: "memory/session.ended",
    data: { app_id: "default", user_id: userId, session_id: sessionId, last_seq: sentences.length },
  };
  return { sessionId, events: [event] as [typeof event] };
}

interface StepSpies {
  step: { run: { mock: { calls: unknown[][] } }; sendEvent: { mock: { calls: unknown[][] } } };
}
/** The ids a run called `step.run` with, in order. */
const ran = (ctx: unknown) => (ctx as StepSpies).step.run.mock.calls.map((args) => args[0]);
/** The events a run sent, by step id. */
const sent = (ctx: unknown) => (ctx as StepSpies).step.sendEvent.mock.calls.map(([id, event]) => ({ id, event }));

type MockedStep = ReturnType<typeof answers>;

/** A step answering `value`; `sendEvent` steps are mocked like this, so nothing is sent. */
const answers = (id: string, value: unknown) => ({ id, handler: () => value });
const failsWith = (id: string, error: Error) => ({
  id,
  handler: () => {
    throw error;
  },
});

const failuresOf = (sessionId: string) =>
  queryRows<{ attempts: number; last_error: string; parked: boolean }>(
    runtime.database.db,
    sql`SELECT attempts, last_error, parked_at IS NOT NULL AS parked FROM pipeline_failures WHERE stage = 'reflection' AND subject = ${sessionId}`,
  );
const jobsOf = (sessionId: string) =>
  queryRows<{ status: string; error: string | null; to_seq: number }>(
    runtime.database.db,
    sql`SELECT status, error, to_seq FROM consolidation_jobs WHERE job_type = 'deep_reflection' AND session_id = ${sessionId} ORDER BY started_at`,
  );

describe("deep reflection, step by step (@inngest/test)", () => {
  it("parks over the app's daily token budget before loading anything, and goes on under it", async () => {
    const { sessionId, events } = await sessionEnd("budget");
    const engine = () => functionTestEngine({ function: deepReflection({ dailyTokenBudget: 1_000 }), events });

    const over = await engine().execute({ steps: [answers("check-token-budget", 1_500)] });
    expect(over.result).toEqual({ session_id: sessionId, parked: "daily token budget", spent: 1_500 });
    expect(ran(over.ctx)).toEqual(["check-token-budget"]);

    const under = await engine().execute({
      steps: [answers("check-token-budget", 999), answers("check-parked", false), answers("load-unreflected-0", null)],
    });
    expect(under.result).toEqual({ session_id: sessionId, chunks: 0, operations: {} });
    expect(ran(under.ctx)).toEqual(["check-token-budget", "check-parked", "load-unreflected-0"]);
    expect(sent(under.ctx)).toEqual([]);
  });

  it("records a failed extraction on its job and against the session, parks it after PIPELINE_MAX_FAILURES, and runs it again once retried", async () => {
    const { sessionId, events } = await sessionEnd("flaky", "I live in Tromsø.", "I work as a ferry pilot.");
    const engine = () => functionTestEngine({ function: deepReflection({ maxFailures: 2 }), events });
    const busy = failsWith("extract-2", new Error("503 upstream busy"));

    const first = await engine().execute({ steps: [busy] });
    expect(first.error).toMatchObject({ message: "503 upstream busy" });
    expect(ran(first.ctx)).toEqual(["check-parked", "load-unreflected-0", "extract-2", "record-failure-2", "record-stage-failure"]);
    expect(await jobsOf(sessionId)).toEqual([{ status: "failed", error: "503 upstream busy", to_seq: 2 }]);
    expect(await failuresOf(sessionId)).toEqual([{ attempts: 1, last_error: "503 upstream busy", parked: false }]);

    // The second failure in a row parks the session: its next run does nothing at all.
    await engine().execute({ steps: [busy] });
    expect(await failuresOf(sessionId)).toEqual([{ attempts: 2, last_error: "503 upstream busy", parked: true }]);
    const parked = await engine().execute();
    expect(parked.result).toEqual({ parked: true });
    expect(ran(parked.ctx)).toEqual(["check-parked"]);
    expect(await jobsOf(sessionId)).toHaveLength(2);

    // A retry (POST /v1/pipeline/retry) forgets the failures; the same chunk is loaded, extracted and consolidated.
    expect(await releaseFailures(runtime.database.db, { appId: "default", userId: "flaky", stage: "reflection" })).toHaveLength(1);
    const retried = await engine().execute();
    expect(retried.result).toMatchObject({ session_id: sessionId, chunks: 1, operations: { "fact:ADD": 2 } });
    // What it wrote is embedded by the run itself: the backfill is asked for nothing.
    expect(ran(retried.ctx)).toContain("embed-reflected-0");
    expect(sent(retried.ctx)).toEqual([]);
    expect((await jobsOf(sessionId)).map((job) => job.status)).toEqual(["failed", "failed", "completed"]);
    expect(await failuresOf(sessionId)).toEqual([]);
    // Everything is reflected now: a further run finds nothing and asks for nothing.
    const after = await engine().execute();
    expect(after.result).toEqual({ session_id: sessionId, chunks: 0, operations: {} });
    expect(sent(after.ctx)).toEqual([]);
  });

  it("parks at once on an error that can never succeed", async () => {
    const { sessionId, events } = await sessionEnd("refused", "My sister is called Ingrid.");
    const engine = functionTestEngine({ function: deepReflection({ maxFailures: 3 }), events });
    const { error } = await engine.execute({ steps: [failsWith("extract-1", new NonRetriableError("400 invalid argument"))] });
    expect(error).toMatchObject({ name: "NonRetriableError", message: "400 invalid argument" });
    expect(await failuresOf(sessionId)).toEqual([{ attempts: 1, last_error: "400 invalid argument", parked: true }]);
  });

  it("hands a long backlog to a new run after 20 chunks, and asks the backfill once per run for what it did not embed", async () => {
    const { sessionId, events } = await sessionEnd("long");
    const chunk = (index: number) => {
      const toSeq = (index + 1) * 5;
      return [
        answers(`load-unreflected-${index}`, { toSeq, jobId: randomUUID(), more: true }),
        answers(`extract-${toSeq}`, { facts: [], insights: [], traits: [] }),
        answers(`consolidate-${toSeq}`, { applied: true, counts: { "fact:ADD": 2, "insight:ADD": 1 } }),
      ];
    };
    // The run's own embedding leaves rows behind (a batch failed): the backfill is asked for them.
    const sends = [
      answers("embed-reflected-0", { embedded: 0, remaining: true, failed: "embedder busy" }),
      answers("continue-reflection", { ids: ["e-1"] }),
      answers("request-embeddings", { ids: ["e-2"] }),
    ];
    const engine = () => functionTestEngine({ function: deepReflection(), events });

    const full = await engine().execute({
      steps: [answers("check-parked", false), ...Array.from({ length: 21 }, (_, index) => chunk(index)).flat(), ...sends],
    });
    expect(full.result).toEqual({ session_id: sessionId, chunks: 20, operations: { "fact:ADD": 40, "insight:ADD": 20 } });
    // The 21st chunk is the next run's: this one stops at 20 and sends the session on.
    expect(ran(full.ctx)).not.toContain("load-unreflected-20");
    expect(sent(full.ctx)).toEqual([
      {
        id: "continue-reflection",
        event: expect.objectContaining({
          name: "memory/reflection.requested",
          data: { session_id: sessionId, app_id: "default", user_id: "long", reason: "manual" },
        }),
      },
      {
        id: "request-embeddings",
        event: expect.objectContaining({ name: "memory/embeddings.requested", data: { app_id: "default", user_id: "long" } }),
      },
    ]);

    // A short backlog ends by itself, with no hand-off.
    const short = await engine().execute({
      steps: [answers("check-parked", false), ...chunk(0), ...chunk(1), answers("load-unreflected-2", null), ...sends],
    });
    expect(short.result).toEqual({ session_id: sessionId, chunks: 2, operations: { "fact:ADD": 4, "insight:ADD": 2 } });
    expect(sent(short.ctx).map(({ id }) => id)).toEqual(["request-embeddings"]);

    // A chunk another run reflected first ends this run: its result stands, nothing more is asked for.
    const [load, extract] = chunk(0);
    const overtaken = await engine().execute({
      steps: [
        answers("check-parked", false),
        load as MockedStep,
        extract as MockedStep,
        answers("consolidate-5", { applied: false, counts: {} }),
        ...sends,
      ],
    });
    expect(overtaken.result).toEqual({ session_id: sessionId, chunks: 0, operations: {} });
    expect(sent(overtaken.ctx)).toEqual([]);
  });
});
