import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { PipelineStage } from "../../vocabulary/pipeline-stage.js";
import { timestampTz } from "./columns.js";

export { PIPELINE_STAGES, type PipelineStage } from "../../vocabulary/pipeline-stage.js";

/**
 * Dead letters: consecutive failed runs of one stage for one session (replay, reflection) or one
 * user (embedding, `subject` = ""). After `PIPELINE_MAX_FAILURES` (or one non-retryable error)
 * the stage is parked: the sweep leaves it alone until someone retries it. A success clears the row.
 */
export const pipelineFailures = pgTable(
  "pipeline_failures",
  {
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    stage: text("stage").$type<PipelineStage>().notNull(),
    /** The session id, or "" for a stage that works per user. */
    subject: text("subject").notNull(),
    attempts: integer("attempts").notNull(),
    lastError: text("last_error").notNull(),
    firstFailedAt: timestampTz("first_failed_at").notNull().defaultNow(),
    lastFailedAt: timestampTz("last_failed_at").notNull().defaultNow(),
    parkedAt: timestampTz("parked_at"),
  },
  (table) => [
    primaryKey({ columns: [table.appId, table.userId, table.stage, table.subject] }),
    index("pipeline_failures_stage_idx").on(table.stage, table.subject),
  ],
);
