import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { pipelineSettings } from "../../functions/settings.js";
import { createPipelineClient } from "../../inngest/client.js";
import { createFastReplay } from "../../inngest/functions/fast-replay.js";
import { queryRows } from "../../src/db/database.js";
import { summarizeChunk, writeChunkEpisodes } from "../../src/pipeline/derive/replay-chunk.js";
import { startChunkJob } from "../../src/pipeline/jobs.js";
import { loadReplayChunk } from "../../src/pipeline/replay-backlog.js";
import { systemClock } from "../../src/util/clock.js";
import { functionTestEngine } from "../fixtures/function-test-engine.js";
import { call, createSession, message, startTestRuntime, testEnv } from "../fixtures/runtime.js";

/**
 * Fast replay of an ended session as a function, step by step (`@inngest/test`), against this pass's
 * database. No executor runs: the race is staged by hand inside a mocked step.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

function fastReplayEnded() {
  const deps = {
    db: runtime.database.db,
    clock: systemClock,
    llm: runtime.providers.llm,
    embedder: runtime.providers.embedder,
    settings: pipelineSettings(testEnv()),
  };
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const [, ended] = createFastReplay(createPipelineClient({ mode: "embedded", logger: quiet }, deps), {
    replayDebounce: "1s",
    replayDebounceTimeout: "10s",
  });
  return ended as NonNullable<typeof ended>;
}

const ran = (ctx: unknown) => (ctx as { step: { run: { mock: { calls: unknown[][] } } } }).step.run.mock.calls.map((args) => args[0]);

describe("fast replay of an ended session, step by step (@inngest/test)", () => {
  it("loads again what a replay cancelled mid-step left, instead of stopping at the first skipped write", async () => {
    const sessionId = await createSession(runtime.app, "raced");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I moved to Porto in spring."), message("assistant", "Porto is lovely in spring.")],
    });
    const db = runtime.database.db;
    const event = { name: "memory/session.ended", data: { app_id: "default", user_id: "raced", session_id: sessionId, last_seq: 2 } };

    // While this run summarises events 1-2, the debounced replay the end cancelled finishes the
    // step it was in: it writes the episode of event 1 and moves the watermark to 1.
    const summarizeWhileCancelledRunWrites = {
      id: "summarize-2",
      handler: async () => {
        const whole = await loadReplayChunk(db, sessionId, 40);
        if (!whole) throw new Error("nothing to replay");
        const first = { ...whole, events: whole.events.slice(0, 1), toSeq: 1, more: true };
        const jobId = await startChunkJob(db, "cancelled-run", "fast_replay", first);
        await writeChunkEpisodes(db, { ...first, jobId }, await summarizeChunk(runtime.providers.llm, first), {
          model: runtime.providers.llm.id,
          now: new Date(),
        });
        return summarizeChunk(runtime.providers.llm, whole);
      },
    };
    const { result, ctx } = await functionTestEngine({ function: fastReplayEnded(), events: [event] }).execute({
      steps: [summarizeWhileCancelledRunWrites],
    });

    expect(ran(ctx)).toEqual([
      "check-parked",
      "load-backlog-0",
      "summarize-2",
      "write-episode-2",
      "record-skip-2",
      "load-backlog-1",
      "summarize-2-again-1",
      "write-episode-2-again-1",
    ]);
    expect(result).toMatchObject({ session_id: sessionId, turns: 1 });
    const [session] = await queryRows<{ replayed_seq: number }>(db, sql`SELECT replayed_seq FROM sessions WHERE id = ${sessionId}`);
    expect(session?.replayed_seq).toBe(2);
    // One current summary of the session, covering both events; the one of event 1 is superseded.
    const summaries = await queryRows<{ to_seq: string }>(
      db,
      sql`SELECT metadata->>'to_seq' AS to_seq FROM memories WHERE session_id = ${sessionId} AND subtype = 'summary' AND expired_at IS NULL`,
    );
    expect(summaries).toEqual([{ to_seq: "2" }]);
  });
});
