import { checkVectors } from "../embedding-check.js";
import { createEmbeddingQueue } from "../embedding-queue.js";
import type { Embedder, EmbedPriority } from "../types.js";
import { type GeminiOptions, geminiClient } from "./gemini-client.js";
import { toProviderError } from "./gemini-errors.js";

/** Gemini's batch limit for batchEmbedContents. */
const MAX_BATCH = 100;

/** Gemini's task types: a query is embedded for finding documents, a memory as a document to be found. */
const TASK_TYPE: Record<EmbedPriority, string> = { query: "RETRIEVAL_QUERY", background: "RETRIEVAL_DOCUMENT" };

/**
 * Gemini embeddings (`gemini-embedding-001`, shortened to `dimensions` by the API) in batches of up
 * to 100 texts, `concurrency` batches at once behind one queue: queries before backfill, and a 429
 * holds every batch back for the delay Google names. The dimension is part of the model id:
 * vectors of different sizes are never compared.
 */
export function createGeminiEmbedder(options: GeminiOptions & { dimensions: number; concurrency?: number }): Embedder {
  const client = geminiClient(options);
  const queue = createEmbeddingQueue({
    slots: options.concurrency ?? 4,
    maxBatchTexts: MAX_BATCH,
    async run(batch, _slot, priority) {
      let embeddings: { values?: number[] }[] | undefined;
      try {
        ({ embeddings } = await client.models.embedContent({
          model: options.model,
          contents: batch,
          config: { taskType: TASK_TYPE[priority], outputDimensionality: options.dimensions },
        }));
      } catch (error) {
        throw toProviderError(error, "embed");
      }
      const values = (embeddings ?? []).map((embedding) => embedding.values ?? []);
      return checkVectors("Gemini", batch.length, values, options.dimensions);
    },
  });
  return {
    model: `gemini:${options.model}@${options.dimensions}`,
    dimensions: options.dimensions,
    queue,
    embed: (texts, embedOptions) => queue.embed(texts, embedOptions?.priority ?? "background"),
  };
}
