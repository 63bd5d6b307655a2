import { z } from "zod";
import type { Database } from "../db/database.js";
import { recordExecutorRetry, recordExecutorRun } from "../telemetry/metrics.js";
import type { Halt } from "./checkpoints.js";
import { backoffMs, sleepUntil } from "./durations.js";
import type { RegisteredFunction } from "./function-config.js";
import {
  type Claim,
  finishRun,
  loadClaimedSteps,
  loadSteps,
  type MemoizedStep,
  type RunRow,
  releaseRun,
  requeueRun,
  saveStep,
  setAttempt,
} from "./run-store.js";

/** Sends one request to the app's serve handler (in-process `app.request`, or `fetch`). */
export type Invoke = (url: string, init: RequestInit) => Promise<Response>;

const OpSchema = z.looseObject({
  id: z.string(),
  op: z.string(),
  name: z.string().optional(),
  displayName: z.string().optional(),
  data: z.unknown().optional(),
  error: z.unknown().optional(),
});
type Op = z.infer<typeof OpSchema>;

export interface DriverOptions {
  db: Database;
  /** This process's hold on the run; every write to the run is made under it. */
  claim: Claim;
  invoke: Invoke;
  retryBaseMs: number;
  /** Safety bound on requests per claim, so a misbehaving function cannot spin forever. */
  maxRequestsPerClaim?: number;
  /** Asked before each call: true hands the run back to the queue instead (the process is stopping). */
  stopping?: () => boolean;
  /**
   * Whether the run's serve call was stopped at a checkpoint during the last call (its steps run
   * eagerly, each checkpointed before the next): handed back (`release`) or no longer ours (`lost`).
   */
  halted?: () => Halt | undefined;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

type Next = { kind: "continue"; attempt: number } | { kind: "released" };
const RELEASED: Next = { kind: "released" };

/**
 * Drives one claimed run through the SDK protocol (inngest/inngest docs/SDK_SPEC.md): call the
 * function with every memoized step, memoize what it reports, and call again until it returns.
 * Within one call the SDK runs step after step, checkpointing each (written to Postgres) before the
 * next; a call ends at a step's error, a sleep, parallel steps or the SDK's time limit per call.
 * Either way a step's result is stored before the next step runs, so a crash resumes after the
 * last completed step. Retries, sleeps and backoff hand the run back to the queue with a due time.
 */
export async function driveRun(run: RunRow, fn: RegisteredFunction, options: DriverOptions): Promise<void> {
  let attempt = run.attempt;
  const limit = options.maxRequestsPerClaim ?? 500;
  for (let request = 0; request < limit; request++) {
    if (options.stopping?.()) {
      await releaseRun(options.db, options.claim);
      return;
    }
    // Cancelled (the user was erased) or taken over after a lost lease: stop before the next step.
    const steps = await loadClaimedSteps(options.db, options.claim);
    if (!steps) return;
    const response = await callFunction(run, fn, steps, attempt, "step", options);
    // Stopped at a checkpoint: what it answers after that is the SDK halting, not the run's outcome.
    const halt = options.halted?.();
    if (halt) {
      await response.body?.cancel();
      if (halt === "release") await releaseRun(options.db, options.claim);
      return;
    }
    const outcome = await handleResponse(run, fn, response, attempt, options);
    if (outcome.kind === "released") return;
    attempt = outcome.attempt;
  }
  await finishRun(options.db, options.claim, { status: "failed", error: { message: `run exceeded ${limit} requests in one claim` } });
}

async function callFunction(
  run: RunRow,
  fn: RegisteredFunction,
  steps: { stepId: string; step: MemoizedStep }[],
  attempt: number,
  stepId: string,
  options: Pick<DriverOptions, "invoke" | "claim">,
): Promise<Response> {
  const url = new URL(fn.url);
  url.searchParams.set("fnId", fn.id);
  url.searchParams.set("stepId", stepId);
  const body = {
    event: run.event,
    events: run.events,
    steps: Object.fromEntries(steps.map(({ stepId: id, step }) => [id, step])),
    ctx: {
      run_id: run.id,
      attempt,
      max_attempts: run.maxAttempts,
      disable_immediate_execution: false,
      use_api: false,
      stack: { stack: steps.map((step) => step.stepId), current: steps.length },
      // With these the SDK runs the steps it reaches one after another in this call, checkpointing
      // each to the executor's API (`checkpoints.ts`) before the next, instead of returning after
      // one; the claim token stands for the queue item, so each checkpoint names its claim.
      fn_id: fn.id,
      qi_id: options.claim.token,
    },
    version: 2,
  };
  return options.invoke(url.toString(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

async function handleResponse(
  run: RunRow,
  fn: RegisteredFunction,
  response: Response,
  attempt: number,
  options: DriverOptions,
): Promise<Next> {
  const text = await response.text();
  const parsed = parseJson(text);
  if (response.status === 200) {
    await finishRun(options.db, options.claim, { status: "completed", output: parsed });
    recordExecutorRun({ function: fn.id, status: "completed" });
    return RELEASED;
  }
  if (response.status === 206) {
    const ops = z.array(OpSchema).parse(parsed);
    return handleOps(run, fn, ops, attempt, response, options);
  }
  const finalError = response.headers.get("x-inngest-no-retry") === "true" || response.status === 400;
  if (!finalError && attempt + 1 < run.maxAttempts) {
    return retryLater(run, fn, attempt, response, parsed, options);
  }
  options.log?.("run failed", { run: run.id, fn: fn.id, status: response.status });
  await finishRun(options.db, options.claim, { status: "failed", error: parsed ?? { message: `HTTP ${response.status}` } });
  recordExecutorRun({ function: fn.id, status: "failed" });
  return RELEASED;
}

async function handleOps(
  run: RunRow,
  fn: RegisteredFunction,
  ops: Op[],
  attempt: number,
  response: Response,
  options: DriverOptions,
): Promise<Next> {
  let next: Next = { kind: "continue", attempt };
  for (const op of ops) {
    const outcome = await handleOp(run, fn, op, attempt, response, options);
    if (next.kind === "continue") next = outcome;
  }
  return next;
}

async function handleOp(
  run: RunRow,
  fn: RegisteredFunction,
  op: Op,
  attempt: number,
  response: Response,
  options: DriverOptions,
): Promise<Next> {
  const { db, claim } = options;
  switch (op.op) {
    case "StepRun":
    case "Step":
      await saveStep(db, run.id, op.id, op.displayName ?? op.name, { data: op.data ?? null });
      if (attempt !== 0) await setAttempt(db, claim, 0);
      return { kind: "continue", attempt: 0 };
    case "StepFailed":
      // Final: memoize the error so the function sees it thrown at the step and may handle it.
      await saveStep(db, run.id, op.id, op.displayName ?? op.name, { error: op.error ?? { message: "step failed" } });
      if (attempt !== 0) await setAttempt(db, claim, 0);
      return { kind: "continue", attempt: 0 };
    case "StepError":
      if (attempt + 1 >= run.maxAttempts) {
        await saveStep(db, run.id, op.id, op.displayName ?? op.name, { error: op.error ?? { message: "step failed" } });
        await setAttempt(db, claim, 0);
        return { kind: "continue", attempt: 0 };
      }
      return retryLater(run, fn, attempt, response, op.error, options);
    case "StepPlanned": {
      // Parallel steps: run the planned step on its own, then memoize what it reports.
      const steps = await loadSteps(db, run.id);
      const planned = await callFunction(run, fn, steps, attempt, op.id, options);
      return handleResponse(run, fn, planned, attempt, options);
    }
    case "RunComplete":
      // The last answer of a run whose steps were checkpointed: the function's return value.
      await finishRun(db, claim, { status: "completed", output: op.data ?? null });
      recordExecutorRun({ function: fn.id, status: "completed" });
      return RELEASED;
    case "Sleep":
      await saveStep(db, run.id, op.id, op.displayName, { data: null });
      await requeueRun(db, claim, new Date(sleepUntil(op.name ?? "0s", Date.now())), 0);
      return RELEASED;
    default:
      await finishRun(db, claim, {
        status: "failed",
        error: { message: `the embedded executor does not support ${op.op} (step ${op.displayName ?? op.id})` },
      });
      return RELEASED;
  }
}

async function retryLater(
  run: RunRow,
  fn: RegisteredFunction,
  attempt: number,
  response: Response,
  error: unknown,
  options: DriverOptions,
): Promise<Next> {
  const retryAfter = retryAfterMs(response.headers.get("retry-after"));
  const delay = retryAfter ?? backoffMs(attempt, options.retryBaseMs);
  options.log?.("retrying", { run: run.id, fn: fn.id, attempt: attempt + 1, delay_ms: delay });
  recordExecutorRetry({ function: fn.id });
  await requeueRun(options.db, options.claim, new Date(Date.now() + delay), attempt + 1, error ?? null);
  return RELEASED;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}
