import { randomUUID } from "node:crypto";
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import { type Database, type Queryable, queryRows } from "../db/database.js";
import { executorRuns, executorSteps } from "../db/schema/index.js";
import { evaluateKey } from "./expressions.js";
import type { RegisteredFunction } from "./function-config.js";

export type RunRow = typeof executorRuns.$inferSelect;
export type InngestEvent = Record<string, unknown> & { name: string; data: Record<string, unknown> };
export type MemoizedStep = { data: unknown } | { error: unknown };

/** One process's hold on a running run; every write it makes to the run checks it still holds it. */
export interface Claim {
  runId: string;
  token: string;
}

function dataField(event: InngestEvent, field: "app_id" | "user_id"): string | null {
  const value = event.data?.[field];
  return typeof value === "string" ? value : null;
}

/**
 * How a key shared across functions (env or account scope) is stored: `env:<value>`. The claim
 * counts such a key across functions; any other key counts within its function (a per-function
 * value that happens to start with `env:` is then also counted across functions: stricter, never looser).
 */
const SHARED_KEY = "env:";

/** The key a run counts against, or null when its function has no concurrency limit. */
function concurrencyKey(fn: RegisteredFunction, event: InngestEvent): string | null {
  if (!fn.concurrency) return null;
  const value = fn.concurrency.key ? evaluateKey(fn.concurrency.key, event) : null;
  if (fn.concurrency.shared) return `${SHARED_KEY}${value ?? ""}`;
  return value;
}

const heldBy = (claim: Claim) =>
  and(eq(executorRuns.id, claim.runId), eq(executorRuns.status, "running"), eq(executorRuns.claimToken, claim.token));

/**
 * Queues a run of `fn` for `event`. With debounce, the event joins the function's pending run for
 * the same key (pushing its start back by the period, never past the debounce timeout) instead of
 * starting another one; the run keeps the trace of the event that created it.
 */
export async function enqueueRun(
  db: Queryable,
  fn: RegisteredFunction,
  event: InngestEvent,
  options: { now?: number; runId?: string; traceContext?: string | undefined } = {},
): Promise<void> {
  event = storableJson(event);
  const now = options.now ?? Date.now();
  const base = {
    id: options.runId ?? `run_${randomUUID()}`,
    functionId: fn.id,
    status: "queued" as const,
    event,
    events: [event],
    appId: dataField(event, "app_id"),
    userId: dataField(event, "user_id"),
    concurrencyKey: concurrencyKey(fn, event),
    concurrencyLimit: fn.concurrency && fn.concurrency.limit > 0 ? fn.concurrency.limit : null,
    maxAttempts: fn.maxAttempts,
    traceContext: options.traceContext ?? null,
  };
  if (!fn.debounce) {
    // A run id given by the caller (a cron tick) is enqueued once, however many processes try.
    await db
      .insert(executorRuns)
      .values({ ...base, runAt: new Date(now) })
      .onConflictDoNothing({ target: executorRuns.id });
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
 * Cancels `functionId`'s runs not yet finished whose triggering event holds `value` at `path` under
 * `data` (`cancelOn`): queued ones never start, a running one stops before its next step (its claim
 * is gone). Returns how many.
 */
export async function cancelRuns(db: Queryable, functionId: string, path: string[], value: string | undefined): Promise<number> {
  const match = path.length === 0 ? sql`` : sql` AND event #>> ${`{data,${path.join(",")}}`}::text[] = ${value ?? null}`;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE executor_runs SET status = 'cancelled', debounce_key = NULL, lease_until = NULL, finished_at = now(), updated_at = now()
         WHERE function_id = ${functionId} AND status IN ('queued', 'running')${match}
        RETURNING id`,
  );
  return rows.length;
}

/** One advisory lock for claiming, so two processes never both count a concurrency key as free. */
const CLAIM_LOCK = sql`SELECT pg_advisory_xact_lock(hashtextextended('mnemo:executor:claim', 0))`;

/**
 * Claims the next due run whose function and concurrency key are below their limit, marking it
 * running under `token` with a lease, and ends its debounce (later events start a new run).
 * Claims from every process on the database are serialised, so concurrency limits hold across
 * processes. Returns null when nothing is due.
 */
export async function claimDueRun(db: Database, token: string, leaseMs: number): Promise<RunRow | null> {
  const [claimed] = await db.transaction(async (tx) => {
    await tx.execute(CLAIM_LOCK);
    // The runs running now are counted once per key (they are few: a process drives a handful),
    // not once per queued run the claim looks at: a key at its limit with many runs queued behind
    // it (a user's reflections during an import) made every claim count them again for each one.
    return tx
      .update(executorRuns)
      .set({
        status: "running",
        claimToken: token,
        debounceKey: null,
        leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
        updatedAt: sql`now()`,
      })
      .where(
        sql`${executorRuns.id} = (
          WITH busy AS MATERIALIZED (
            SELECT function_id, concurrency_key, count(*) AS n FROM executor_runs WHERE status = 'running' GROUP BY function_id, concurrency_key
          )
          SELECT r.id FROM executor_runs r
           WHERE r.status = 'queued' AND r.run_at <= now()
             AND (r.concurrency_limit IS NULL OR r.concurrency_limit > coalesce((
                   SELECT sum(b.n) FROM busy b
                    WHERE b.concurrency_key IS NOT DISTINCT FROM r.concurrency_key
                      AND (b.function_id = r.function_id OR starts_with(r.concurrency_key, ${SHARED_KEY}))), 0))
           ORDER BY r.run_at
           LIMIT 1
           FOR UPDATE SKIP LOCKED)`,
      )
      .returning();
  });
  return claimed ?? null;
}

/** Extends a claim's lease; false when the run is no longer this claim's (its lease ran out and another took it, or it was cancelled). */
export async function renewLease(db: Database, claim: Claim, leaseMs: number): Promise<boolean> {
  const renewed = await db
    .update(executorRuns)
    .set({ leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where(heldBy(claim))
    .returning({ id: executorRuns.id });
  return renewed.length > 0;
}

/**
 * Runs whose lease ran out — the process driving them died or lost the database — go back to the
 * queue and resume from their memoized steps. Returns how many.
 */
export async function requeueExpiredLeases(db: Database): Promise<number> {
  const rows = await db
    .update(executorRuns)
    .set({ status: "queued", leaseUntil: null, claimToken: null, debounceKey: null, runAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(executorRuns.status, "running"), sql`${executorRuns.leaseUntil} < now()`))
    .returning({ id: executorRuns.id });
  return rows.length;
}

/**
 * Milliseconds until the earliest queued run that is not due yet becomes due, or null if none.
 * Runs already due are left out: the loop asks after claiming all it could, so a due run still
 * queued waits for a concurrency slot, and a finishing run wakes the loop for it (one in another
 * process is seen at the next idle check). Counting them made the loop check again at once, over
 * and over, while one waited; and `greatest(0, NULL)` is 0, so an empty queue did the same.
 */
export async function msUntilNextDue(db: Database): Promise<number | null> {
  const rows = await queryRows<{ wait_ms: number | null }>(
    db,
    sql`SELECT (extract(epoch FROM min(run_at) - now()) * 1000)::float8 AS wait_ms FROM executor_runs WHERE status = 'queued' AND run_at > now()`,
  );
  const wait = rows[0]?.wait_ms;
  return wait === null || wait === undefined ? null : Math.max(0, Number(wait));
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
export async function saveStep(
  db: Database,
  runId: string,
  stepId: string,
  name: string | undefined,
  outcome: MemoizedStep,
): Promise<void> {
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

/**
 * Memoizes a step reported by a run still executing (the SDK's checkpoint), only while `claim`
 * holds the run: false when it no longer does (cancelled, or its lease passed to another process),
 * and then nothing is written. A takeover committed while the statement runs may still see the
 * step stored: harmless, the step did finish, and whoever resumes the run skips it. A step already
 * memoized keeps its first outcome.
 */
export async function saveClaimedStep(
  db: Database,
  claim: Claim,
  stepId: string,
  name: string | undefined,
  data: unknown,
): Promise<boolean> {
  const rows = await queryRows<{ held: boolean }>(
    db,
    sql`WITH held AS (
          SELECT id FROM executor_runs WHERE id = ${claim.runId} AND status = 'running' AND claim_token = ${claim.token}
        ), saved AS (
          INSERT INTO executor_steps (run_id, step_id, name, position, data)
          SELECT id, ${stepId}, ${name ?? null}, (SELECT count(*) FROM executor_steps WHERE run_id = ${claim.runId}),
                 ${JSON.stringify(storableJson(data ?? null))}::jsonb
            FROM held
          ON CONFLICT DO NOTHING
        )
        SELECT EXISTS (SELECT 1 FROM held) AS held`,
  );
  return rows[0]?.held === true;
}

export async function setAttempt(db: Database, claim: Claim, attempt: number): Promise<void> {
  await db.update(executorRuns).set({ attempt, updatedAt: sql`now()` }).where(heldBy(claim));
}

/**
 * Puts a run back in the queue to continue at `runAt` (a retry, or the end of a sleep). Its
 * debounce ended when it was claimed, so it cannot collide with a newer queued run of the same
 * key, and no event can pull its `run_at` forward past a delay a `RetryAfterError` asked for.
 */
export async function requeueRun(db: Database, claim: Claim, runAt: Date, attempt: number, error?: unknown): Promise<void> {
  await db
    .update(executorRuns)
    .set({
      status: "queued",
      runAt,
      attempt,
      leaseUntil: null,
      claimToken: null,
      debounceKey: null,
      error: storableJson(error ?? null),
      updatedAt: sql`now()`,
    })
    .where(heldBy(claim));
}

export async function finishRun(
  db: Database,
  claim: Claim,
  outcome: { status: "completed"; output: unknown } | { status: "failed"; error: unknown },
): Promise<void> {
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
    // A run cancelled meanwhile (the user was erased), or taken over after a lost lease, is not ours to finish.
    .where(heldBy(claim));
}

/**
 * Hands a claimed run back to the queue, due at once, as it stands: its memoized steps, attempt
 * and last error are kept, so whichever process claims it next resumes at its next step. A stop
 * does this between steps instead of waiting for the run to finish.
 */
export async function releaseRun(db: Database, claim: Claim): Promise<void> {
  await db
    .update(executorRuns)
    .set({ status: "queued", runAt: sql`now()`, leaseUntil: null, claimToken: null, updatedAt: sql`now()` })
    .where(heldBy(claim));
}

/**
 * The run's memoized steps, in order, if `claim` still holds it (null once it was cancelled or its
 * lease passed to another process): the check and the read in one statement, before each call.
 */
export async function loadClaimedSteps(db: Database, claim: Claim): Promise<{ stepId: string; step: MemoizedStep }[] | null> {
  const rows = await queryRows<{ held: boolean; step_id: string | null; data: unknown; error: unknown }>(
    db,
    sql`SELECT true AS held, s.step_id, s.data, s.error
          FROM executor_runs r LEFT JOIN executor_steps s ON s.run_id = r.id
         WHERE r.id = ${claim.runId} AND r.status = 'running' AND r.claim_token = ${claim.token}
         ORDER BY s.position`,
  );
  if (rows.length === 0) return null;
  return rows
    .filter((row) => row.step_id !== null)
    .map((row) => ({ stepId: row.step_id as string, step: row.error !== null ? { error: row.error } : { data: row.data } }));
}

/**
 * For a process that owns its database alone (PGlite): after a restart no run is still
 * executing anywhere, so runs left `running` go back to the queue at once and resume from their
 * memoized steps. On a shared Postgres, leases do this instead (`requeueExpiredLeases`).
 */
export async function recoverInterruptedRuns(db: Database): Promise<number> {
  const rows = await db
    .update(executorRuns)
    .set({ status: "queued", leaseUntil: null, claimToken: null, debounceKey: null, runAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(executorRuns.status, "running"))
    .returning({ id: executorRuns.id });
  return rows.length;
}

/**
 * Deletes finished runs (with their memoized steps, which hold users' words) older than
 * `retentionMs`: the executor's tables would otherwise grow without bound. Returns how many.
 */
export async function pruneFinishedRuns(db: Database, retentionMs: number): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`DELETE FROM executor_runs WHERE finished_at < now() - make_interval(secs => ${retentionMs / 1000}) AND status IN ('completed', 'failed', 'cancelled') RETURNING id`,
  );
  return rows.length;
}

export interface PipelineStatus {
  queued: number;
  running: number;
  failed: number;
  completed: number;
}

export interface RunScope {
  appId?: string;
  userId?: string;
}

function runScope(scope: RunScope): SQL {
  const conditions = [sql`TRUE`];
  if (scope.appId !== undefined) conditions.push(sql`app_id = ${scope.appId}`);
  if (scope.userId !== undefined) conditions.push(sql`user_id = ${scope.userId}`);
  return sql`WHERE ${sql.join(conditions, sql` AND `)}`;
}

/** Run counts, for one app and user (runs whose event names them), or for the whole pipeline. */
export async function pipelineStatus(db: Database, scope: RunScope = {}): Promise<PipelineStatus> {
  const rows = await queryRows<{ status: string; count: number }>(
    db,
    sql`SELECT status, count(*)::int AS count FROM executor_runs ${runScope(scope)} GROUP BY status`,
  );
  const status: PipelineStatus = { queued: 0, running: 0, failed: 0, completed: 0 };
  for (const row of rows) if (row.status in status) status[row.status as keyof PipelineStatus] = Number(row.count);
  return status;
}

export interface RunSummary {
  id: string;
  app_id: string | null;
  user_id: string | null;
  session_id: string | null;
  function_id: string;
  status: string;
  attempt: number;
  error: unknown;
  created_at: string;
  finished_at: string | null;
  steps: { name: string | null; error: unknown; created_at: string }[];
}

/** A user's latest pipeline runs in one app, with their memoized steps, for the dashboard (embedded executor). */
export async function recentRuns(db: Database, scope: { appId: string; userId: string }, limit: number): Promise<RunSummary[]> {
  return queryRows<RunSummary>(
    db,
    sql`SELECT r.id, r.app_id, r.user_id, r.event -> 'data' ->> 'session_id' AS session_id, r.function_id, r.status, r.attempt, r.error, r.created_at, r.finished_at,
               coalesce((SELECT json_agg(json_build_object('name', s.name, 'error', s.error, 'created_at', s.created_at) ORDER BY s.position)
                           FROM executor_steps s WHERE s.run_id = r.id), '[]'::json) AS steps
          FROM executor_runs r WHERE r.app_id = ${scope.appId} AND r.user_id = ${scope.userId} ORDER BY r.created_at DESC LIMIT ${limit}`,
  );
}
