import { z } from "zod";
import { type consolidationJobs, JOB_STATUSES } from "../../src/db/schema/index.js";
import { Timestamp } from "./timestamp.js";

export const JOB_TYPES = ["fast_replay", "deep_reflection", "embed_backfill"] as const;

/** One consolidation pass over a range of a session's log. */
export const JobSchema = z.object({
  id: z.uuid(),
  app_id: z.string(),
  user_id: z.string(),
  job_type: z.enum(JOB_TYPES),
  status: z.enum(JOB_STATUSES),
  session_id: z.uuid().nullable(),
  run_id: z.string().nullable(),
  from_seq: z.number().int().nullable(),
  to_seq: z.number().int().nullable(),
  progress: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  started_at: Timestamp,
  completed_at: Timestamp.nullable(),
});

export function jobJson(row: typeof consolidationJobs.$inferSelect): z.infer<typeof JobSchema> {
  return {
    id: row.id,
    app_id: row.appId,
    user_id: row.userId,
    job_type: row.jobType,
    status: row.status,
    session_id: row.sessionId,
    run_id: row.runId,
    from_seq: row.fromSeq,
    to_seq: row.toSeq,
    progress: row.progress,
    result: row.result ?? null,
    error: row.error,
    started_at: row.startedAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
