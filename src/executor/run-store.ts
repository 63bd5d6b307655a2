import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { type Database, type Executor, queryRows } from "../db/database.js";
import { executorRuns, executorSteps } from "../db/schema/index.js";
import { evaluateKey } from "./expressions.js";
import type { RegisteredFunction } from "./function-config.js";

export type RunRow = typeof executorRuns.$inferSelect;
export type InngestEvent = Record<string, unknown> & { name: string; data: Record<string, unknown> };
export type MemoizedStep = { data: unknown } | { error: unknown };

function userOf(event: InngestEvent): string | null {
  const userId = event.data?.["user_id"];
  return typeof userId === "string" ? userId : null;
}

/**
 * Queues a run of `fn` for `event`. With debounce, the event joins the function's pending run for
 * the same key (pushing its start back by the period, never past the debounce timeout) instead of
 * starting another one.
 */
export async function enqueueRun(db: Database, fn: RegisteredFunction, event: InngestEvent, now = Date.now()): Promise<void> {
  event = storableJson(event);
  const base = {
    id: `run_${randomUUID()}`,
    functionId: fn.id,
    status: "queued" as const,
    event,
    events: [event],
    userId: userOf(event),
    concurrencyKey: fn.concurrency?.key ? evaluateKey(fn.concurrency.key, event) : null,
    concurrencyLimit: fn.concurrency && fn.concurrency.limit > 0 ? fn.concurrency.limit : null,
    maxAttempts: fn.maxAttempts,
  };
  if (!fn.debounce) {
    await db.insert(executorRuns).values({ ...base, runAt: new Date(now) });
    return;
  }
  const runAt = new Date(now + fn.debounce.periodMs);
  await db
    .insert(executorRuns)
    .values({
      ...base,
      debounceKey: fn.debounce.key ? evaluateKey(fn.debounce.key, event) : "",
      runAt,
      debounceDeadline: fn.debounce.timeoutMs ? new Date(now + fn.debounce.timeoutMs) : null,
    })
    .onConflictDoUpdate({
      target: [executorRuns.functionId, executorRuns.debounceKey],
      targetWhere: sql`${executorRuns.status} = 'queued' AND ${executorRuns.debounceKey} IS NOT NULL`,
      set: {
        event: sql`excluded.event`,
        events: sql`excluded.events`,
        runAt: sql`LEAST(excluded.run_at, coalesce(${executorRuns.debounceDeadline}, excluded.run_at))`,
        updatedAt: sql`now()`,
      },
    });
}

/**
 * Claims the next due run whose function and concurrency key are below their limit, marking it
 * running with a lease. Returns null when nothing is due.
 */
export async function claimDueRun(db: Database, leaseMs: number): Promise<RunRow | null> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE executor_runs SET status = 'running', lease_until = now() + make_interval(secs => ${leaseMs / 1000}), updated_at = now()
         WHERE id = (
           SELECT r.id FROM executor_runs r
            WHERE r.status = 'queued' AND r.run_at <= now()
              AND (r.concurrency_limit IS NULL OR r.concurrency_limit > (
                    SELECT count(*) FROM executor_runs x
                     WHERE x.status = 'running' AND x.function_id = r.function_id
                       AND x.concurrency_key IS NOT DISTINCT FROM r.concurrency_key))
            ORDER BY r.run_at
            LIMIT 1
            FOR UPDATE SKIP LOCKED)
        RETURNING id`,
  );
  const claimed = rows[0];
  if (!claimed) return null;
  const [run] = await db.select().from(executorRuns).where(eq(executorRuns.id, claimed.id));
  return run ?? null;
}

/** Milliseconds until the earliest queued run is due (0 if one is due now), or null if none. */
export async function msUntilNextDue(db: Database): Promise<number | null> {
  const rows = await queryRows<{ wait_ms: number | null }>(
    db,
    sql`SELECT greatest(0, extract(epoch FROM min(run_at) - now()) * 1000)::float8 AS wait_ms FROM executor_runs WHERE status = 'queued'`,
  );
  const wait = rows[0]?.wait_ms;
  return wait === null || wait === undefined ? null : Number(wait);
}

export async function loadSteps(db: Database, runId: string): Promise<{ stepId: string; step: MemoizedStep }[]> {
  const rows = await db.select().from(executorSteps).where(eq(executorSteps.runId, runId)).orderBy(asc(executorSteps.position));
  return rows.map((row) => ({ stepId: row.stepId, step: row.error !== null ? { error: row.error } : { data: row.data } }));
}

/**
 * Postgres `jsonb` cannot hold U+0000; step results and errors are arbitrary, so it is replaced
 * rather than letting one odd character make a run impossible to memoize.
 */
export function storableJson<T>(value: T): T {
  if (value === undefined) return value;
  const text = JSON.stringify(value);
  // An escaped NUL is "\u0000" preceded by an even number of backslashes.
  const nul = /(?<!\\)((?:\\\\)*)\\u0000/g;
  return nul.test(text) ? (JSON.parse(text.replace(nul, "$1\\ufffd")) as T) : value;
}

/** Memoizes a step's outcome; a step already memoized keeps its first outcome. */
export async function saveStep(db: Database, runId: string, stepId: string, name: string | undefined, outcome: MemoizedStep): Promise<void> {
  await db
    .insert(executorSteps)
    .values({
      runId,
      stepId,
      name: name ?? null,
      position: sql`(SELECT count(*) FROM executor_steps WHERE run_id = ${runId})`,
      data: "data" in outcome ? storableJson(outcome.data ?? null) : null,
      error: "error" in outcome ? storableJson(outcome.error ?? { message: "unknown error" }) : null,
    })
    .onConflictDoNothing();
}

export async function setAttempt(db: Database, runId: string, attempt: number): Promise<void> {
  await db.update(executorRuns).set({ attempt, updatedAt: sql`now()` }).where(eq(executorRuns.id, runId));
}

/** Puts a run back in the queue to continue at `runAt` (a retry, or the end of a sleep). */
export async function requeueRun(db: Database, runId: string, runAt: Date, attempt: number, error?: unknown): Promise<void> {
  await db
    .update(executorRuns)
    .set({ status: "queued", runAt, attempt, leaseUntil: null, error: storableJson(error ?? null), updatedAt: sql`now()` })
    .where(and(eq(executorRuns.id, runId), eq(executorRuns.status, "running")));
}

export async function finishRun(db: Database, runId: string, outcome: { status: "completed"; output: unknown } | { status: "failed"; error: unknown }): Promise<void> {
  await db
    .update(executorRuns)
    .set({
      status: outcome.status,
      output: outcome.status === "completed" ? storableJson(outcome.output ?? null) : null,
      error: outcome.status === "failed" ? storableJson(outcome.error) : null,
      leaseUntil: null,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    // A run cancelled meanwhile (the user was erased) stays cancelled.
    .where(and(eq(executorRuns.id, runId), eq(executorRuns.status, "running")));
}

export async function isCancelled(db: Database, runId: string): Promise<boolean> {
  const [row] = await db.select({ status: executorRuns.status }).from(executorRuns).where(eq(executorRuns.id, runId));
  return row?.status === "cancelled";
}

/** Cancels a user's queued and running runs; a running one stops before its next step. */
export async function cancelUserRuns(db: Executor, scope: { appId: string; userId: string }): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE executor_runs SET status = 'cancelled', lease_until = NULL, finished_at = now(), updated_at = now()
         WHERE user_id = ${scope.userId} AND status IN ('queued', 'running') AND event -> 'data' ->> 'app_id' = ${scope.appId}
        RETURNING id`,
  );
  return rows.length;
}

/**
 * After a restart no run of this process is still executing: runs left `running` go back to the
 * queue and resume from their memoized steps.
 */
export async function recoverInterruptedRuns(db: Database): Promise<number> {
  const rows = await db
    .update(executorRuns)
    .set({ status: "queued", leaseUntil: null, runAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(executorRuns.status, "running"))
    .returning({ id: executorRuns.id });
  return rows.length;
}

export interface PipelineStatus {
  queued: number;
  running: number;
  failed: number;
  completed: number;
}

/** Run counts, for one user (runs whose event carries `user_id`) or for the whole pipeline. */
export async function pipelineStatus(db: Database, userId?: string): Promise<PipelineStatus> {
  const scope = userId === undefined ? sql`` : sql`WHERE user_id = ${userId}`;
  const rows = await queryRows<{ status: string; count: number }>(
    db,
    sql`SELECT status, count(*)::int AS count FROM executor_runs ${scope} GROUP BY status`,
  );
  const status: PipelineStatus = { queued: 0, running: 0, failed: 0, completed: 0 };
  for (const row of rows) if (row.status in status) status[row.status as keyof PipelineStatus] = Number(row.count);
  return status;
}

export interface RunSummary {
  id: string;
  function_id: string;
  status: string;
  attempt: number;
  error: unknown;
  created_at: string;
  finished_at: string | null;
  steps: { name: string | null; error: unknown; created_at: string }[];
}

/** A user's latest pipeline runs with their memoized steps, for the dashboard (embedded executor). */
export async function recentRuns(db: Database, userId: string, limit: number): Promise<RunSummary[]> {
  return queryRows<RunSummary>(
    db,
    sql`SELECT r.id, r.function_id, r.status, r.attempt, r.error, r.created_at, r.finished_at,
               coalesce((SELECT json_agg(json_build_object('name', s.name, 'error', s.error, 'created_at', s.created_at) ORDER BY s.position)
                           FROM executor_steps s WHERE s.run_id = r.id), '[]'::json) AS steps
          FROM executor_runs r WHERE r.user_id = ${userId} ORDER BY r.created_at DESC LIMIT ${limit}`,
  );
}
