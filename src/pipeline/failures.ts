import { and, eq, isNotNull, type SQL, sql } from "drizzle-orm";
import type { Database, Queryable } from "../db/database.js";
import { type PipelineStage, pipelineFailures } from "../db/schema/index.js";
import { unlessErased } from "../memory/user-lock.js";

/** What a stage works on: a session (replay, reflection) or a whole user (embedding). */
export interface StageTarget {
  appId: string;
  userId: string;
  stage: PipelineStage;
  /** The session id; absent for a per-user stage. */
  sessionId?: string;
}

export interface ParkedStage {
  stage: PipelineStage;
  session_id: string | null;
  attempts: number;
  error: string;
  first_failed_at: string;
  parked_at: string;
}

export const DEFAULT_MAX_FAILURES = 3;

const targetIs = (target: StageTarget): SQL =>
  and(
    eq(pipelineFailures.appId, target.appId),
    eq(pipelineFailures.userId, target.userId),
    eq(pipelineFailures.stage, target.stage),
    eq(pipelineFailures.subject, target.sessionId ?? ""),
  ) as SQL;

/**
 * Counts one failed run of a stage. After `maxFailures` consecutive ones — or at once for an
 * error that can never succeed (`retryable: false`) — the stage is parked: the sweep stops
 * re-sending it (each re-send of a broken session would be one more paid LLM call) until someone
 * retries it. Returns whether it is now parked.
 */
export async function recordStageFailure(
  db: Database,
  target: StageTarget,
  failure: { message: string; retryable: boolean },
  maxFailures = DEFAULT_MAX_FAILURES,
): Promise<boolean> {
  // A run that failed because its user was erased under it counts nothing against them.
  let parked = false;
  await unlessErased(db, target, async (tx) => {
    parked = await countFailure(tx, target, failure, maxFailures);
  });
  return parked;
}

async function countFailure(
  db: Queryable,
  target: StageTarget,
  failure: { message: string; retryable: boolean },
  maxFailures: number,
): Promise<boolean> {
  const message = failure.message.slice(0, 2000);
  const park = sql`CASE WHEN ${pipelineFailures.attempts} + 1 >= ${maxFailures} OR ${!failure.retryable} THEN coalesce(${pipelineFailures.parkedAt}, now()) END`;
  const [row] = await db
    .insert(pipelineFailures)
    .values({
      appId: target.appId,
      userId: target.userId,
      stage: target.stage,
      subject: target.sessionId ?? "",
      attempts: 1,
      lastError: message,
      parkedAt: !failure.retryable || maxFailures <= 1 ? sql`now()` : null,
    })
    .onConflictDoUpdate({
      target: [pipelineFailures.appId, pipelineFailures.userId, pipelineFailures.stage, pipelineFailures.subject],
      set: { attempts: sql`${pipelineFailures.attempts} + 1`, lastError: message, lastFailedAt: sql`now()`, parkedAt: park },
    })
    .returning({ parkedAt: pipelineFailures.parkedAt });
  return row?.parkedAt !== null && row?.parkedAt !== undefined;
}

/** A success ends the count of consecutive failures. */
export async function clearStageFailure(db: Queryable, target: StageTarget): Promise<void> {
  await db.delete(pipelineFailures).where(targetIs(target));
}

/** Whether this stage of this session (or user) is parked. */
export async function isParked(db: Database, target: StageTarget): Promise<boolean> {
  const [row] = await db
    .select({ parkedAt: pipelineFailures.parkedAt })
    .from(pipelineFailures)
    .where(and(targetIs(target), isNotNull(pipelineFailures.parkedAt)))
    .limit(1);
  return row !== undefined;
}

/** The parked stages of a user (or of everyone in an app), oldest first. */
export async function listParked(db: Database, scope: { appId?: string; userId?: string }): Promise<ParkedStage[]> {
  const conditions = [isNotNull(pipelineFailures.parkedAt)];
  if (scope.appId !== undefined) conditions.push(eq(pipelineFailures.appId, scope.appId));
  if (scope.userId !== undefined) conditions.push(eq(pipelineFailures.userId, scope.userId));
  const rows = await db
    .select()
    .from(pipelineFailures)
    .where(and(...conditions))
    .orderBy(pipelineFailures.parkedAt);
  return rows.map((row) => ({
    stage: row.stage,
    session_id: row.subject === "" ? null : row.subject,
    attempts: row.attempts,
    error: row.lastError,
    first_failed_at: row.firstFailedAt.toISOString(),
    parked_at: (row.parkedAt as Date).toISOString(),
  }));
}

/**
 * Forgets the failures of a user's stages (all, or one stage, or one session's) so they run
 * again; returns what was cleared, for the caller to re-send.
 */
export async function releaseFailures(
  db: Database,
  scope: { appId: string; userId: string; stage?: PipelineStage; sessionId?: string },
): Promise<StageTarget[]> {
  const conditions = [eq(pipelineFailures.appId, scope.appId), eq(pipelineFailures.userId, scope.userId)];
  if (scope.stage) conditions.push(eq(pipelineFailures.stage, scope.stage));
  if (scope.sessionId) conditions.push(eq(pipelineFailures.subject, scope.sessionId));
  const rows = await db
    .delete(pipelineFailures)
    .where(and(...conditions))
    .returning({ stage: pipelineFailures.stage, subject: pipelineFailures.subject });
  return rows.map((row) => ({
    appId: scope.appId,
    userId: scope.userId,
    stage: row.stage,
    ...(row.subject ? { sessionId: row.subject } : {}),
  }));
}
