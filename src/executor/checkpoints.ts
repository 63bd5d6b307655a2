import { z } from "zod";
import type { Database } from "../db/database.js";
import { type Claim, saveClaimedStep } from "./run-store.js";

/**
 * The body of the SDK's async checkpoint (`POST /v1/checkpoint/<run id>/async`): the steps a run
 * finished since its last checkpoint. `qi_id` is what the executor passed as the queue item id —
 * its claim token — so a checkpoint names the claim it was made under.
 */
const CheckpointSchema = z.looseObject({
  run_id: z.string().min(1),
  qi_id: z.string().min(1),
  steps: z.array(
    z.looseObject({
      id: z.string().min(1),
      op: z.string(),
      name: z.string().optional(),
      displayName: z.string().optional(),
      data: z.unknown().optional(),
    }),
  ),
});

/** Why a run's serve call was told to stop between steps. */
export type Halt = "release" | "lost";

/** A run this process is driving, as the checkpoint endpoint sees it. */
export interface ActiveRun {
  claim: Claim;
  functionId: string;
  /** When this process began driving it (`performance.now()`). */
  since: number;
  /** The last step it checkpointed, by name: where a run that outlives a stop was. */
  lastStep?: string;
  /** Set when the run was told to stop at a checkpoint; the driver then hands it back or lets go. */
  halted?: Halt;
}

export interface CheckpointOptions {
  db: Database;
  active: ReadonlyMap<string, ActiveRun>;
  /** True while the executor is stopping with `releaseRuns`: a run stops after the step it checkpoints. */
  releasing: () => boolean;
}

const json = (body: unknown, status: number) => Response.json(body, { status });

/**
 * Answers a checkpoint: memoizes each finished step under the run's claim before the SDK runs the
 * next one, so a crash resumes after the last step checkpointed, exactly as when each step was its
 * own serve call. A 409 stops the run's serve call at once (the SDK halts on it): its claim is gone
 * (cancelled, or taken over after a lost lease), or this process is handing its runs back. Any
 * other failure makes the SDK retry the checkpoint, then report the steps in its answer instead.
 *
 * @example
 * const response = await acceptCheckpoint(await request.json(), { db, active, releasing: () => false });
 */
export async function acceptCheckpoint(body: unknown, options: CheckpointOptions): Promise<Response> {
  const parsed = CheckpointSchema.safeParse(body);
  if (!parsed.success) return json({ error: `invalid checkpoint: ${parsed.error.message}` }, 400);
  const { run_id: runId, qi_id: token, steps } = parsed.data;
  const run = options.active.get(runId);
  if (!run || run.claim.token !== token) return json({ error: `run ${runId} is not driven under this claim` }, 409);
  const unsupported = steps.find((step) => step.op !== "StepRun");
  if (unsupported) return json({ error: `the embedded executor does not checkpoint ${unsupported.op}` }, 400);
  for (const step of steps) {
    if (!(await saveClaimedStep(options.db, run.claim, step.id, step.displayName ?? step.name, step.data))) {
      run.halted = "lost";
      return json({ error: `run ${runId} is no longer held by this claim` }, 409);
    }
    run.lastStep = step.displayName ?? step.name ?? step.id;
  }
  if (options.releasing()) {
    run.halted = "release";
    return json({ error: "the executor is stopping: the run goes back to the queue after this step" }, 409);
  }
  return json({ ok: true }, 200);
}
