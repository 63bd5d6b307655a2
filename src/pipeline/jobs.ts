import { and, eq, lte, ne, sql } from "drizzle-orm";
import type { Database, Queryable } from "../db/database.js";
import { consolidationJobs, sessions } from "../db/schema/index.js";
import { unlessErased } from "../memory/user-lock.js";
import { stableUuid } from "../util/stable-id.js";

type JobInsert = typeof consolidationJobs.$inferInsert;

/**
 * Records a consolidation job. The id is derived by the caller from the pipeline run and
 * the range, so re-running the step after a crash finds the same job instead of adding another.
 */
export async function startJob(db: Queryable, job: Omit<JobInsert, "status" | "startedAt">): Promise<void> {
  await db
    .insert(consolidationJobs)
    .values({ ...job, status: "running" })
    .onConflictDoNothing({ target: consolidationJobs.id });
}

/** How a job ended: its status, what it produced or why not, and optionally its final progress. */
export interface JobOutcome {
  status: "completed" | "failed" | "skipped";
  result?: Record<string, unknown>;
  error?: string;
  progress?: Record<string, unknown>;
}

export async function finishJob(db: Pick<Database, "update">, id: string, outcome: JobOutcome): Promise<void> {
  await db
    .update(consolidationJobs)
    .set({
      status: outcome.status,
      result: outcome.result ?? null,
      error: outcome.error ?? null,
      completedAt: sql`now()`,
      ...(outcome.progress ? { progress: outcome.progress } : {}),
    })
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
  const watermark = jobType === "fast_replay" ? sessions.replayedSeq : sessions.reflectedSeq;
  // The chunk was read before this write: if the user was erased in between, no job names them;
  // if another run moved the watermark in between (and closed the jobs it overtook), neither does
  // a job that could never finish. Writers of the watermark hold the same user lock.
  await unlessErased(db, { appId, userId, sessionId }, async (tx) => {
    const [current] = await tx.select({ seq: watermark }).from(sessions).where(eq(sessions.id, sessionId));
    if (current?.seq !== chunk.fromSeq) return;
    await startJob(tx, {
      id,
      appId: chunk.session.appId,
      userId: chunk.session.userId,
      sessionId: chunk.session.id,
      jobType,
      runId,
      fromSeq: chunk.fromSeq + 1,
      toSeq: chunk.toSeq,
      progress: { events: chunk.events.length, ...progress },
    });
  });
  return id;
}

/**
 * Closes a session's jobs of one stage that can never finish: still running over a range the
 * stage's watermark has now passed (`throughSeq`). A crash after a chunk's job was recorded but
 * before its step's result was saved leaves one behind: the step runs again, loads from wherever
 * the watermark is by then, and records a different job. Called in the transaction that moves the
 * watermark, so no job stays "running" once its events are consolidated.
 */
export async function closeOvertakenJobs(
  tx: Queryable,
  stage: { sessionId: string; jobType: "fast_replay" | "deep_reflection"; throughSeq: number; byJobId: string },
): Promise<void> {
  await tx
    .update(consolidationJobs)
    .set({ status: "skipped", result: { reason: "overtaken", by_job: stage.byJobId }, completedAt: sql`now()` })
    .where(
      and(
        eq(consolidationJobs.sessionId, stage.sessionId),
        eq(consolidationJobs.jobType, stage.jobType),
        eq(consolidationJobs.status, "running"),
        lte(consolidationJobs.toSeq, stage.throughSeq),
        ne(consolidationJobs.id, stage.byJobId),
      ),
    );
}
