import { cron } from "inngest";
import { runDecay } from "../../src/memory/decay.js";
import type { DecayParameters } from "../../src/memory/retention.js";
import type { PipelineClient } from "../client.js";

/**
 * Scheduled decay (R1, R3): recompute retention of every current memory and forget what is old,
 * unimportant and below the threshold (see `runDecay`). Idempotent: a second pass the same day
 * finds nothing more to forget.
 */
export function createDecay(inngest: PipelineClient, settings: { decayCron: string; decayParameters: DecayParameters }) {
  return inngest.createFunction(
    { id: "decay", name: "Scheduled decay", triggers: [cron(settings.decayCron)], concurrency: { limit: 1 }, retries: 2 },
    async ({ step, deps }) => {
      const report = await step.run("decay", async () => {
        const result = await runDecay(deps.db, {}, settings.decayParameters, false);
        return {
          recomputed: result.recomputed,
          forgotten: result.forgotten.length,
          over_quota: result.over_quota.length,
          traits_dissolved: result.traits_dissolved.length,
          purged: result.purged,
        };
      });
      return report;
    },
  );
}
