import { cron } from "inngest";
import { type DecayScope, decayBatch, finishDecay } from "../../src/memory/lifecycle/decay.js";
import type { DecayParameters } from "../../src/memory/lifecycle/retention.js";
import type { PipelineClient } from "../client.js";
import { DecayRequestedSchema, decayRequested } from "../events.js";
import { parsePayload } from "./payload.js";

/** Batches per run before it hands over to a new run; keeps each run's step count modest. */
const MAX_BATCHES_PER_RUN = 200;

/**
 * Scheduled decay (R1, R3): recompute retention of every current memory and forget what is old,
 * unimportant and below the threshold (see `decayBatch`), then enforce the quota, dissolve traits
 * and purge. Each batch is a step that returns its cursor, so a crash resumes after the last
 * committed batch; a pass larger than one run continues in a new run from its cursor.
 */
export function createDecay(
  inngest: PipelineClient,
  settings: { decayCron: string; decayParameters: DecayParameters; decayBatchSize: number },
) {
  return inngest.createFunction(
    { id: "decay", name: "Scheduled decay", triggers: [cron(settings.decayCron), decayRequested], concurrency: { limit: 1 }, retries: 2 },
    async ({ event, step, deps }) => {
      // A cron tick has no payload: the whole store, from the beginning.
      const request = event.name === decayRequested.name ? parsePayload(DecayRequestedSchema, event) : undefined;
      const scope: DecayScope = {
        ...(request?.app_id ? { appId: request.app_id } : {}),
        ...(request?.user_id ? { userId: request.user_id } : {}),
      };
      let cursor = request?.cursor ?? null;
      let recomputed = 0;
      let forgotten = 0;
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const result = await step.run(`decay-batch-${batch}`, async () => {
          const done = await decayBatch(deps.db, scope, settings.decayParameters, cursor, deps.clock.now(), settings.decayBatchSize);
          return { cursor: done.cursor, recomputed: done.recomputed, forgotten: done.forgotten.length };
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
        return { over_quota: done.over_quota.length, traits_dissolved: done.traits_dissolved.length, purged: done.purged };
      });
      return { recomputed, forgotten, ...finish };
    },
  );
}
