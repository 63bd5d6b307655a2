import type { Database } from "../../src/db/database.js";
import { isParked, recordStageFailure, type StageTarget } from "../../src/pipeline/failures.js";

/** The one step tool this helper needs (Inngest's `step`). */
interface StepTools {
  run(id: string, work: () => Promise<unknown>): Promise<unknown>;
}

/**
 * Runs a stage's work and, when it fails for good (a step out of retries, or an error that can
 * never succeed), counts the failure against the stage's session or user before rethrowing, so
 * repeated failures park the stage instead of being re-sent by the sweep forever. A run of a stage
 * that is already parked does nothing: it was queued while the failing run still ran (or sent by a
 * new append), and each of its attempts would be one more paid call; a retry unparks first.
 */
export async function countingFailures<T>(
  step: StepTools,
  deps: { db: Database; settings: { maxFailures: number } },
  target: StageTarget,
  work: () => Promise<T>,
): Promise<T | { parked: true }> {
  if (await step.run("check-parked", () => isParked(deps.db, target))) return { parked: true };
  try {
    return await work();
  } catch (error) {
    // A step's final error reaches the function as a StepError named after the original error.
    const failure = {
      message: error instanceof Error ? error.message : String(error),
      retryable: !(error instanceof Error && error.name === "NonRetriableError"),
    };
    await step.run("record-stage-failure", () => recordStageFailure(deps.db, target, failure, deps.settings.maxFailures));
    throw error;
  }
}
