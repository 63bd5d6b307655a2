import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import { type LanguageModel, ProviderError } from "../../src/providers/types.js";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { call, createSession, message, testEnv, waitForSettled } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

let database: TestDatabase | undefined;
const opened: Runtime[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
  await database?.drop();
  database = undefined;
});

/**
 * Every request fails on its first try, alternately with a 429 carrying a retry delay and a 503,
 * and succeeds when retried. (Failing every other call globally would let two concurrent runs
 * starve one of them of successes on a loaded machine: a test of bad luck, not of retries.)
 */
function flakyModel(): LanguageModel & { failures: number } {
  const seen = new Set<string>();
  const fail = (request: unknown) => {
    const key = JSON.stringify(request);
    if (seen.has(key)) return;
    seen.add(key);
    model.failures++;
    throw model.failures % 2 === 1 ? new ProviderError("429 rate limited", true, 150) : new ProviderError("503 unavailable", true);
  };
  const model = {
    id: "flaky-model",
    failures: 0,
    async summarize(request: Parameters<LanguageModel["summarize"]>[0]) {
      fail(["summarize", request]);
      return offlineLanguageModel.summarize(request);
    },
    async extract(request: Parameters<LanguageModel["extract"]>[0]) {
      fail(["extract", request]);
      return offlineLanguageModel.extract(request);
    },
  };
  return model;
}

const HOBBIES = [
  "sailing",
  "chess",
  "pottery",
  "jazz",
  "hiking",
  "baking",
  "knitting",
  "surfing",
  "cycling",
  "painting",
  "gardening",
  "climbing",
  "fencing",
  "rowing",
  "archery",
  "birdwatching",
  "origami",
  "skiing",
  "karaoke",
  "juggling",
];

const rows = <T>(runtime: Runtime, query: ReturnType<typeof sql>) => queryRows<T>(runtime.database.db, query);

describe("provider faults while appends keep arriving, with a crash in the middle", () => {
  it("completes every run, duplicates nothing, restarts cleanly and finishes the work", async () => {
    database = await freshDatabase({ persistent: true });
    const env = testEnv({
      ...database.env,
      REPLAY_MAX_EVENTS: "5",
      REPLAY_DEBOUNCE: "50ms",
      REFLECTION_IMPORTANCE_THRESHOLD: "1",
      EXECUTOR_LEASE: "2s",
      SWEEP_CRON: "* * * * * *",
      SWEEP_MIN_AGE: "1s",
    });
    const llm = flakyModel();
    let runtime = await startRuntime(env, { providers: { llm } });
    opened.push(runtime);
    const sessionId = await createSession(runtime.app, "faults");
    const sent: string[] = [];
    for (let round = 0; round < 20; round++) {
      if (round === 10) {
        // Crash: the executor stops mid-work without finishing its runs, the database closes.
        opened.splice(opened.indexOf(runtime), 1);
        await runtime.executor?.stop({ waitForRuns: false });
        await runtime.database.close();
        runtime = await startRuntime(env, { providers: { llm } });
        opened.push(runtime);
      }
      const events = [message("user", `I love ${HOBBIES[round]}.`), message("assistant", `Noted: ${HOBBIES[round]}.`)];
      const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events });
      expect(appended.status).toBe(201);
      sent.push(...events.map((event) => event.content));
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`)).status).toBe(200);
    await waitForSettled(runtime.app, "faults");
    expect(llm.failures).toBeGreaterThan(3);

    // Every acknowledged event is in the log, gapless.
    const log = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events?limit=100`)).body.events as {
      seq: number;
      content: string;
    }[];
    expect(log.map((event) => event.seq)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(log.map((event) => event.content)).toEqual(sent);
    // One current turn per event, one current summary per chunk of five, one current fact per key.
    const turns = await rows<{ seq: number; n: number }>(
      runtime,
      sql`SELECT (metadata ->> 'seq')::int AS seq, count(*)::int AS n FROM memories WHERE user_id = 'faults' AND subtype = 'turn' AND expired_at IS NULL GROUP BY 1`,
    );
    expect(turns).toHaveLength(40);
    expect(turns.every((turn) => turn.n === 1)).toBe(true);
    const summaries = await rows<{ from_seq: number; n: number }>(
      runtime,
      sql`SELECT (metadata ->> 'from_seq')::int AS from_seq, count(*)::int AS n FROM memories WHERE user_id = 'faults' AND subtype = 'summary' AND expired_at IS NULL GROUP BY 1 ORDER BY 1`,
    );
    expect(summaries).toEqual(Array.from({ length: 8 }, (_, index) => ({ from_seq: index * 5 + 1, n: 1 })));
    const facts = await rows<{ key: string; n: number }>(
      runtime,
      sql`SELECT key, count(*)::int AS n FROM memories WHERE user_id = 'faults' AND type = 'semantic' AND expired_at IS NULL GROUP BY key`,
    );
    expect(facts.length).toBeGreaterThanOrEqual(20);
    expect(facts.every((fact) => fact.n === 1)).toBe(true);
    // Nothing wedged: every run that existed when the work settled finishes (the every-second sweep
    // keeps starting new ones, so "none running right now" would be a race, not a check); none failed.
    const settledAt = (await rows<{ now: string }>(runtime, sql`SELECT now()::text AS now`))[0]?.now as string;
    await waitUntil(async () => {
      const unfinished = await rows<{ id: string }>(
        runtime,
        sql`SELECT id FROM executor_runs WHERE status IN ('queued', 'running') AND created_at <= ${settledAt}::timestamptz`,
      );
      return unfinished.length === 0;
    }, "every run that existed when the work settled to finish");
    expect(await rows(runtime, sql`SELECT id FROM executor_runs WHERE status = 'failed'`)).toEqual([]);
    // Likewise for jobs, and eventually (a run still finishing may hold one open for a moment). A
    // job the crash left running — recorded by a step whose result the crash lost, so the step ran
    // again and recorded another — failed this wait on a loaded CI machine until the transaction
    // that moves a watermark closed the jobs it overtakes (overtaken-jobs.test.ts). A
    // sweep-started run may open new jobs after that moment; they are not counted.
    await waitUntil(
      async () =>
        (await rows(runtime, sql`SELECT id FROM consolidation_jobs WHERE status = 'running' AND started_at <= ${settledAt}::timestamptz`))
          .length === 0,
      "every job open when the work settled to finish",
    );
    const session = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body;
    expect(session).toMatchObject({ last_seq: 40, replayed_seq: 40, reflected_seq: 40 });
  });
});
