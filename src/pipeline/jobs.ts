import { eq, sql } from "drizzle-orm";
import type { Database, Queryable } from "../db/database.js";
import { consolidationJobs } from "../db/schema/index.js";
import { unlessErased } from "../memory/user-lock.js";
import { stableUuid } from "../util/stable-id.js";

type JobInsert = typeof consolidationJobs.$inferInsert;

/**
 * Records a consolidation job (C7). The id is derived by the caller from the pipeline run and
 * the range, so re-running the step after a crash finds the same job instead of adding another.
 */
export async function startJob(db: Queryable, job: Omit<JobInsert, "status" | "startedAt">): Promise<void> {
  await db
    .insert(consolidationJobs)
    .values({ ...job, status: "running" })
    .onConflictDoNothing({ target: consolidationJobs.id });
}

export async function finishJob(
  db: Pick<Database, "update">,
  id: string,
  outcome: { status: "completed" | "failed" | "skipped"; result?: Record<string, unknown>; error?: string },
): Promise<void> {
  await db
    .update(consolidationJobs)
    .set({ status: outcome.status, result: outcome.result ?? null, error: outcome.error ?? null, completedAt: sql`now()` })
    .where(eq(consolidationJobs.id, id));
}

/**
 * Records the job for one chunk of a session's log, with an id derived from the run and the
 * watermark, so the step that calls it can run again after a crash without adding a second job.
 */
export async function startChunkJob(
  db: Database,
  runId: string,
  jobType: "fast_replay" | "deep_reflection",
  chunk: { session: { id: string; appId: string; userId: string }; fromSeq: number; toSeq: number; events: unknown[] },
  progress: Record<string, unknown> = {},
): Promise<string> {
  const id = stableUuid(`${runId}:${jobType}:${chunk.fromSeq}`);
  const { appId, userId, id: sessionId } = chunk.session;
  // The chunk was read before this write: if the user was erased in between, no job names them.
  await unlessErased(db, { appId, userId, sessionId }, (tx) =>
    startJob(tx, {
      id,
      appId: chunk.session.appId,
      userId: chunk.session.userId,
      sessionId: chunk.session.id,
      jobType,
      runId,
      fromSeq: chunk.fromSeq + 1,
      toSeq: chunk.toSeq,
      progress: { events: chunk.events.length, ...progress },
    }),
  );
  return id;
}
