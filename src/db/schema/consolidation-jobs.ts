import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

export const JOB_STATUSES = ["running", "completed", "failed", "skipped"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** One consolidation pass over a range of a session's log, keyed by the pipeline run. */
export const consolidationJobs = pgTable(
  "consolidation_jobs",
  {
    id: uuid("id").primaryKey(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    sessionId: uuid("session_id"),
    jobType: text("job_type").$type<"fast_replay" | "deep_reflection" | "embed_backfill">().notNull(),
    runId: text("run_id"),
    status: text("status").$type<JobStatus>().notNull(),
    fromSeq: integer("from_seq"),
    toSeq: integer("to_seq"),
    progress: jsonb("progress").$type<Record<string, unknown>>().notNull().default({}),
    result: jsonb("result").$type<Record<string, unknown>>(),
    error: text("error"),
    startedAt: timestampTz("started_at").notNull().defaultNow(),
    completedAt: timestampTz("completed_at"),
  },
  (table) => [
    index("consolidation_jobs_user_idx").on(table.appId, table.userId, table.startedAt.desc()),
    // What changed lately (a job's last change is its completion, else its start), read by live streams every second.
    index("consolidation_jobs_changed_idx").on(table.appId, table.userId, sql`coalesce(${table.completedAt}, ${table.startedAt})`),
    // A session's open jobs of one stage: closed when the watermark passes them (see closeOvertakenJobs).
    index("consolidation_jobs_running_idx").on(table.sessionId, table.jobType).where(sql`${table.status} = 'running'`),
  ],
);
