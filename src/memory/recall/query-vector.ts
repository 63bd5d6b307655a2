import type { Embedder } from "../../providers/types.js";
import { type UsageScope, withUsageScope } from "../../providers/usage-scope.js";
import type { AnnIndex } from "./ann-index.js";
import type { QueryVector } from "./engines/recall-index.js";
import type { QueryVectorCache } from "./query-vector-cache.js";

/**
 * The query's vector as recall takes it (with the index's dimension once its model has a valid
 * HNSW index), metered under `usage` (a repeated query comes from `recall.queryVectors`, with
 * no provider call to meter). Returned as a promise for recall to await after its text ranking; it
 * never rejects: an embedder that fails, or returns no vector, leaves recall to the text ranking
 * and says why in `warnings`.
 */
export function embedQueryForRecall(
  deps: { embedder: Embedder; ann?: AnnIndex; recall?: { queryVectors?: QueryVectorCache } },
  usage: UsageScope,
  query: string,
  warnings: string[],
): Promise<QueryVector | undefined> {
  const embed = () =>
    withUsageScope(usage, () => deps.embedder.embed([query], { priority: "query" })).then(([values]) => {
      if (!values) throw new Error("the embedder returned no vector for the query");
      return values;
    });
  const cache = deps.recall?.queryVectors;
  return (cache ? cache.vectorFor(usage, deps.embedder.model, query, embed) : embed())
    .then((values) => {
      const annDimensions = deps.ann?.dimensionsFor(deps.embedder.model);
      return { values, model: deps.embedder.model, ...(annDimensions ? { annDimensions } : {}) };
    })
    .catch((error: unknown) => {
      warnings.push(`vector recall skipped, full-text only: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
}
