import { findUnembedded, storeEmbeddings } from "../../src/memory/write/embeddings.js";
import { embeddingsRequested } from "../../src/pipeline/events.js";
import { clearStageFailure } from "../../src/pipeline/failures.js";
import { withUsageScope } from "../../src/providers/usage-scope.js";
import type { PipelineClient } from "../client.js";
import { USER_KEY } from "./keys.js";
import { toStepError } from "./provider-errors.js";
import { countingFailures } from "./stage-failures.js";

const MAX_BATCHES_PER_RUN = 50;

/**
 * Embedding backfill: memories are written without a vector; this embeds a user's pending
 * rows in batches, one step per batch, so a crash loses at most the batch in flight and a retry
 * never overwrites a stored vector. One run per user at a time.
 */
export function createEmbedBackfill(inngest: PipelineClient) {
  return inngest.createFunction(
    {
      id: "embed-backfill",
      name: "Embedding backfill",
      triggers: [embeddingsRequested],
      // The timeout bounds the wait when requests keep arriving (e.g. from the sweep).
      debounce: { key: USER_KEY, period: "1s", timeout: "5s" },
      concurrency: { limit: 1, key: USER_KEY },
      retries: 4,
    },
    async ({ event, step, deps }) => {
      const payload = event.data;
      const scope = { appId: payload.app_id, userId: payload.user_id };
      const target = { stage: "embedding" as const, ...scope };
      return countingFailures(step, deps, target, async () => {
        let embedded = 0;
        for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
          const result = await step.run(`embed-batch-${batch}`, async () => {
            const rows = await findUnembedded(deps.db, deps.embedder.model, deps.settings.embedBatchSize, scope);
            if (rows.length === 0) return { found: 0, stored: 0 };
            const vectors = await withUsageScope({ ...scope, stage: "backfill" }, () =>
              deps.embedder.embed(rows.map((row) => row.content)).catch(toStepError),
            );
            const stored = await storeEmbeddings(
              deps.db,
              deps.embedder.model,
              rows.map((row, index) => ({ id: row.id, vector: vectors[index] as number[] })),
            );
            await clearStageFailure(deps.db, target);
            return { found: rows.length, stored };
          });
          embedded += result.stored;
          if (result.found < deps.settings.embedBatchSize) return { embedded };
        }
        await step.sendEvent("continue-backfill", embeddingsRequested.create(payload));
        return { embedded, continued: true };
      });
    },
  );
}
