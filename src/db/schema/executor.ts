import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

export const RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * The embedded executor's durable state: runs with their triggering events, and every memoized
 * step, so a restart resumes a run where it stopped instead of redoing committed steps.
 * A debounced run stays `queued` with `debounce_key` set and its `run_at` pushed forward by
 * each new event; at most one such run exists per function and key. Claiming a run clears its
 * debounce key: a started run (or one waiting to retry) takes no more events, the next event
 * starts a new debounce.
 */
export const executorRuns = pgTable(
  "executor_runs",
  {
    id: text("id").primaryKey(),
    functionId: text("function_id").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    event: jsonb("event").$type<Record<string, unknown>>().notNull(),
    events: jsonb("events").$type<Record<string, unknown>[]>().notNull(),
    /** The app and user the triggering event names, for scoping status, listings and erasure. */
    appId: text("app_id"),
    userId: text("user_id"),
    debounceKey: text("debounce_key"),
    concurrencyKey: text("concurrency_key"),
    /** Runs of this function and concurrency key allowed to run at once; null means no limit. */
    concurrencyLimit: integer("concurrency_limit"),
    attempt: integer("attempt").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    runAt: timestampTz("run_at").notNull(),
    debounceDeadline: timestampTz("debounce_deadline"),
    /**
     * While running: until when the claiming process holds the run. It renews the lease as it
     * works; a lease that ran out (the process died) sends the run back to the queue.
     */
    leaseUntil: timestampTz("lease_until"),
    /** Which claim holds the run; writes of a claim that lost its lease are refused. */
    claimToken: text("claim_token"),
    /**
     * The W3C `traceparent` of whatever sent the event that created the run (an append's request,
     * a step that sent an event), so the run's spans join that trace; null when nothing traced it.
     */
    traceContext: text("trace_context"),
    output: jsonb("output"),
    error: jsonb("error"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
    finishedAt: timestampTz("finished_at"),
  },
  (table) => [
    index("executor_runs_due_idx").on(table.runAt).where(sql`${table.status} = 'queued'`),
    index("executor_runs_user_idx").on(table.appId, table.userId, table.status),
    // Pruning finished runs after EXECUTOR_RETENTION.
    index("executor_runs_finished_idx").on(table.finishedAt).where(sql`${table.finishedAt} IS NOT NULL`),
    index("executor_runs_lease_idx").on(table.leaseUntil).where(sql`${table.status} = 'running'`),
    uniqueIndex("executor_runs_debounce_idx")
      .on(table.functionId, table.debounceKey)
      .where(sql`${table.status} = 'queued' AND ${table.debounceKey} IS NOT NULL`),
  ],
);

export const executorSteps = pgTable(
  "executor_steps",
  {
    runId: text("run_id")
      .notNull()
      .references(() => executorRuns.id, { onDelete: "cascade" }),
    stepId: text("step_id").notNull(),
    /** Order in which the run reached the step, for the SDK's step stack. */
    position: integer("position").notNull(),
    name: text("name"),
    data: jsonb("data"),
    error: jsonb("error"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.stepId] })],
);
