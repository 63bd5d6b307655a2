import { cron } from "inngest";
import { type DecayScope, decayBatch, finishDecay } from "../../src/memory/lifecycle/decay.js";
import type { DecayParameters } from "../../src/memory/lifecycle/retention.js";
import { decayRequested } from "../../src/pipeline/events.js";
import { recordDecay } from "../../src/telemetry/metrics.js";
import type { PipelineClient } from "../client.js";

/** Steps per run before it hands over to a new run; keeps each run's step count modest. */
const MAX_STEPS_PER_RUN = 200;

/**
 * Scheduled decay: judge every current memory's retention and forget what is old,
 * unimportant and below the threshold (see `decayBatch`), then enforce the quota, dissolve traits
 * and purge. A step runs batches (each its own transaction) for up to `decayStepBudgetMs` and
 * returns its cursor, so a crash resumes after the last step; the batches of the step that crashed
 * run again, which is harmless (a forgotten memory is no longer current). Every step costs a round
 * of the durable protocol that replays the steps before it: at one batch per step, 100 steps for
 * 100K memories on the embedded database cost more than the batches. A pass larger than one run
 * continues in a new run from its cursor.
 */
export function createDecay(
  inngest: PipelineClient,
  settings: { decayCron: string; decayParameters: DecayParameters; decayBatchSize: number; decayStepBudgetMs: number },
) {
  return inngest.createFunction(
    { id: "decay", name: "Scheduled decay", triggers: [cron(settings.decayCron), decayRequested], concurrency: { limit: 1 }, retries: 2 },
    async ({ event, step, deps }) => {
      // A cron tick has no payload: the whole store, from the beginning.
      const request = event.name === decayRequested.name ? event.data : undefined;
      const scope: DecayScope = {
        ...(request?.app_id ? { appId: request.app_id } : {}),
        ...(request?.user_id ? { userId: request.user_id } : {}),
      };
      let cursor = request?.cursor ?? null;
      let recomputed = 0;
      let forgotten = 0;
      for (let batch = 0; batch < MAX_STEPS_PER_RUN; batch++) {
        const from = cursor;
        const result = await step.run(`decay-batch-${batch}`, async () => {
          const started = Date.now();
          const judged = { cursor: from, recomputed: 0, forgotten: 0 };
          do {
            const done = await decayBatch(
              deps.db,
              scope,
              settings.decayParameters,
              judged.cursor,
              deps.clock.now(),
              settings.decayBatchSize,
            );
            judged.cursor = done.cursor;
            judged.recomputed += done.recomputed;
            judged.forgotten += done.forgotten.length;
          } while (judged.cursor !== null && Date.now() - started < settings.decayStepBudgetMs);
          recordDecay({ recomputed: judged.recomputed, forgotten: judged.forgotten });
          return judged;
        });
        recomputed += result.recomputed;
        forgotten += result.forgotten;
        cursor = result.cursor;
        if (cursor === null) break;
      }
      if (cursor !== null) {
        await step.sendEvent("continue-decay", decayRequested.create({ app_id: scope.appId, user_id: scope.userId, cursor }));
        return { recomputed, forgotten, continued: true };
      }
      const finish = await step.run("decay-finish", async () => {
        const done = await finishDecay(deps.db, scope, settings.decayParameters, deps.clock.now());
        const counts = { over_quota: done.over_quota.length, traits_dissolved: done.traits_dissolved.length, purged: done.purged };
        recordDecay(counts);
        return counts;
      });
      return { recomputed, forgotten, ...finish };
    },
  );
}
