import { z } from "zod";
import type { UnembeddedScope } from "../../src/memory/write/embeddings.js";
import { embedWritten } from "../../src/pipeline/embed-written.js";
import type { PipelineDeps } from "../client.js";

/** Batches a stage embeds itself before it leaves the rest to the backfill. */
const INLINE_BATCHES = 4;

interface StepTools {
  run(id: string, work: () => Promise<unknown>): Promise<unknown>;
}

/** A batch's memoized outcome (step results come back as JSON). */
const OutcomeSchema = z.object({ embedded: z.number(), remaining: z.boolean(), failed: z.string().optional() });

/**
 * Embeds what the stage wrote, a batch a step (`<name>-<n>`), and answers whether the backfill must
 * still be asked: rows are left after `INLINE_BATCHES` batches, or a batch failed. A failure here
 * never fails the stage that wrote the rows (they are committed): the backfill, with its retries and
 * dead letters, takes them over, so the error is reported where embedding failures are.
 */
export async function embedInline(
  step: StepTools,
  deps: PipelineDeps,
  scope: UnembeddedScope,
  name: string,
): Promise<{ askBackfill: boolean }> {
  for (let batch = 0; batch < INLINE_BATCHES; batch++) {
    const outcome = OutcomeSchema.parse(
      await step.run(`${name}-${batch}`, () =>
        embedWritten(deps, scope, deps.settings.embedBatchSize).catch((error: unknown) => ({
          embedded: 0,
          remaining: true,
          failed: error instanceof Error ? error.message : String(error),
        })),
      ),
    );
    if (outcome.failed !== undefined || !outcome.remaining) return { askBackfill: outcome.failed !== undefined };
  }
  return { askBackfill: true };
}
