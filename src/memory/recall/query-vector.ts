import type { Embedder } from "../../providers/types.js";
import { type UsageScope, withUsageScope } from "../../usage/usage-scope.js";
import type { AnnIndex } from "./ann-index.js";
import type { QueryVector } from "./hybrid-recall.js";

/**
 * The query's vector as recall takes it (with the index's dimension once its model has a valid
 * HNSW index), metered under `usage`. Returned as a promise for recall to await after its text
 * ranking; it never rejects: an embedder that fails, or returns no vector, leaves recall to the
 * text ranking and says why in `warnings`.
 */
export function embedQueryForRecall(
  deps: { embedder: Embedder; ann?: AnnIndex },
  usage: UsageScope,
  query: string,
  warnings: string[],
): Promise<QueryVector | undefined> {
  return withUsageScope(usage, () => deps.embedder.embed([query]))
    .then(([values]) => {
      if (!values) throw new Error("the embedder returned no vector for the query");
      const annDimensions = deps.ann?.dimensionsFor(deps.embedder.model);
      return { values, model: deps.embedder.model, ...(annDimensions ? { annDimensions } : {}) };
    })
    .catch((error: unknown) => {
      warnings.push(`vector recall skipped, full-text only: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
}
