import { checkVectors } from "../embedding-check.js";
import type { Embedder } from "../types.js";
import { type GeminiOptions, geminiClient } from "./gemini-client.js";
import { toProviderError } from "./gemini-errors.js";

/** Gemini's batch limit for batchEmbedContents. */
const MAX_BATCH = 100;

/**
 * Gemini embeddings (`gemini-embedding-001`, shortened to `dimensions` by the API) in batches of up
 * to 100 texts. The dimension is part of the model id: vectors of different sizes are never compared.
 */
export function createGeminiEmbedder(options: GeminiOptions & { dimensions: number }): Embedder {
  const client = geminiClient(options);
  return {
    model: `gemini:${options.model}@${options.dimensions}`,
    dimensions: options.dimensions,
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += MAX_BATCH) {
        const batch = texts.slice(start, start + MAX_BATCH);
        let embeddings: { values?: number[] }[] | undefined;
        try {
          ({ embeddings } = await client.models.embedContent({
            model: options.model,
            contents: batch,
            config: { taskType: "RETRIEVAL_DOCUMENT", outputDimensionality: options.dimensions },
          }));
        } catch (error) {
          throw toProviderError(error, "embed");
        }
        const values = (embeddings ?? []).map((embedding) => embedding.values ?? []);
        vectors.push(...checkVectors("Gemini", batch.length, values, options.dimensions));
      }
      return vectors;
    },
  };
}
