import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { startChunkJob } from "../../src/pipeline/jobs.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

const USER = "overtaken";

/**
 * A crash after a chunk's job was recorded but before its step's result was saved: the step runs
 * again from wherever the watermark is by then and records another job. The first one must not
 * stay "running" for ever (the fault-injection test found one on a loaded machine).
 */
describe("jobs a crash left open are closed when the watermark passes them", () => {
  let runtime: Runtime;
  let sessionId: string;
  const jobs = () =>
    queryRows<{ id: string; job_type: string; status: string; result: { reason?: string; by_job?: string } | null }>(
      runtime.database.db,
      sql`SELECT id, job_type, status, result FROM consolidation_jobs WHERE user_id = ${USER} ORDER BY started_at, id`,
    );

  beforeAll(async () => {
    runtime = await startTestRuntime({ LOG_LEVEL: "error" });
    sessionId = await createSession(runtime.app, USER);
  });
  afterAll(() => runtime?.close());

  it("marks the orphaned replay and reflection jobs skipped, overtaken by the jobs that consolidated their events", async () => {
    // What the crashed run left: a job per stage over events 1-2, "running", its run gone.
    for (const [id, jobType] of [
      ["00000000-0000-4000-8000-00000000aaaa", "fast_replay"],
      ["00000000-0000-4000-8000-00000000bbbb", "deep_reflection"],
    ] as const) {
      await runtime.database.db.execute(
        sql`INSERT INTO consolidation_jobs (id, app_id, user_id, session_id, job_type, run_id, status, from_seq, to_seq)
            VALUES (${id}, 'default', ${USER}, ${sessionId}, ${jobType}, 'run_crashed', 'running', 1, 2)`,
      );
    }
    const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I live in Oslo and I love chess."), message("assistant", "Nice!")],
    });
    expect(appended.status).toBe(201);
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`)).status).toBe(200);
    await waitForSettled(runtime.app, USER);

    const all = await jobs();
    expect(all.filter((job) => job.status === "running")).toEqual([]);
    const orphans = all.filter((job) => job.id.endsWith("aaaa") || job.id.endsWith("bbbb"));
    expect(orphans).toHaveLength(2);
    for (const orphan of orphans) {
      const finisher = all.find((job) => job.id === orphan.result?.by_job);
      expect(orphan).toMatchObject({ status: "skipped", result: { reason: "overtaken" } });
      // Overtaken by the job of the same stage that consolidated the events.
      expect(finisher).toMatchObject({ job_type: orphan.job_type, status: "completed" });
    }
  });

  it("records no job for a chunk whose watermark another run moved after it was loaded", async () => {
    const before = (await jobs()).length;
    const stale = { session: { id: sessionId, appId: "default", userId: USER }, fromSeq: 0, toSeq: 2, events: [] };
    // Events 1-2 are replayed and reflected already: the watermark is 2, not 0.
    await startChunkJob(runtime.database.db, "run_late", "fast_replay", stale);
    await startChunkJob(runtime.database.db, "run_late", "deep_reflection", stale);
    expect(await jobs()).toHaveLength(before);
    // The same call at the watermark records its job.
    await startChunkJob(runtime.database.db, "run_late", "fast_replay", { ...stale, fromSeq: 2 });
    expect(await jobs()).toHaveLength(before + 1);
  });
});
