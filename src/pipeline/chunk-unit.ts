import { and, eq, sql } from "drizzle-orm";
import type { Database, Queryable } from "../db/database.js";
import { sessions } from "../db/schema/index.js";
import { lockUser } from "../memory/user-lock.js";
import { clearStageFailure } from "./failures.js";
import { closeOvertakenJobs, finishJob, type JobOutcome } from "./jobs.js";

/** The stages that digest a session's log chunk by chunk, each behind its own watermark. */
export type ChunkStage = "replay" | "reflection";

/** A chunk as its stage loaded it: the session, the watermark it was read after, its last seq, and the job recording it. */
export interface ChunkClaim {
  session: { id: string; appId: string; userId: string };
  fromSeq: number;
  toSeq: number;
  jobId: string;
}

/** What a memory writer made of a chunk: what it wrote and the job's outcome, or a refusal that undoes the whole chunk. */
export type ChunkWrite<Written> = { written: Written; job: JobOutcome } | { refused: string };

/** `applied: false` when another run moved the watermark first (`watermark_moved`) or the writer refused. */
export type ChunkOutcome<Written> = { applied: true; written: Written } | { applied: false; reason: string };

const WATERMARK = { replay: sessions.replayedSeq, reflection: sessions.reflectedSeq } as const;
const JOB_TYPE = { replay: "fast_replay", reflection: "deep_reflection" } as const;

/** Thrown inside the transaction to roll the watermark back when the writer refuses the chunk. */
class ChunkRefused extends Error {
  constructor(readonly reason: string) {
    super(`chunk refused: ${reason}`);
  }
}

/**
 * The pipeline's unit of work for one chunk, the same for replay and reflection (and a rebuild's
 * shadow derivation): one transaction that takes the user's lock (every writer of the user's
 * derived memory takes it), moves the stage's watermark only from where the chunk was read (a
 * run that lost the race writes nothing), runs the memory writer — which knows nothing of
 * watermarks or jobs — and completes the chunk's job, closes the jobs it overtook and ends the
 * stage's count of consecutive failures. A writer that refuses (an event it quotes was redacted
 * since) rolls everything back.
 *
 * @example
 * const outcome = await commitChunk(db, "replay", chunk, async (tx) => ({ written: 1, job: { status: "completed" } }));
 */
export async function commitChunk<Written>(
  db: Database,
  stage: ChunkStage,
  chunk: ChunkClaim,
  write: (tx: Queryable) => Promise<ChunkWrite<Written>>,
): Promise<ChunkOutcome<Written>> {
  const { id: sessionId, appId, userId } = chunk.session;
  try {
    return await db.transaction(async (tx): Promise<ChunkOutcome<Written>> => {
      await lockUser(tx, appId, userId);
      const moved = await tx
        .update(sessions)
        .set({ ...(stage === "replay" ? { replayedSeq: chunk.toSeq } : { reflectedSeq: chunk.toSeq }), updatedAt: sql`now()` })
        .where(and(eq(sessions.id, sessionId), eq(WATERMARK[stage], chunk.fromSeq)))
        .returning({ id: sessions.id });
      if (moved.length === 0) return { applied: false, reason: "watermark_moved" };
      const outcome = await write(tx);
      if ("refused" in outcome) throw new ChunkRefused(outcome.refused);
      await finishJob(tx, chunk.jobId, outcome.job);
      await closeOvertakenJobs(tx, { sessionId, jobType: JOB_TYPE[stage], throughSeq: chunk.toSeq, byJobId: chunk.jobId });
      await clearStageFailure(tx, { stage, appId, userId, sessionId });
      return { applied: true, written: outcome.written };
    });
  } catch (error) {
    if (error instanceof ChunkRefused) return { applied: false, reason: error.reason };
    throw error;
  }
}
