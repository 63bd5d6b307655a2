import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { consolidationJobs } from "../db/schema/index.js";

type JobInsert = typeof consolidationJobs.$inferInsert;

/**
 * Records a consolidation job (C7). The id is derived by the caller from the pipeline run and
 * the range, so re-running the step after a crash finds the same job instead of adding another.
 */
export async function startJob(db: Database, job: Omit<JobInsert, "status" | "startedAt">): Promise<void> {
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
