import { GoogleGenerativeAI, TaskType } from "@google/generative-ai";
import type { Embedder } from "../types.js";
import { toProviderError } from "./gemini-errors.js";
import type { GeminiOptions } from "./gemini-language-model.js";

/** Gemini's batch limit for batchEmbedContents. */
const MAX_BATCH = 100;

/** Gemini embeddings (`text-embedding-004`: 768 dimensions) in batches of up to 100 texts. */
export function createGeminiEmbedder(options: GeminiOptions & { dimensions: number }): Embedder {
  const model = new GoogleGenerativeAI(options.apiKey).getGenerativeModel(
    { model: options.model },
    options.baseUrl ? { baseUrl: options.baseUrl } : undefined,
  );
  return {
    model: `gemini:${options.model}`,
    dimensions: options.dimensions,
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += MAX_BATCH) {
        const batch = texts.slice(start, start + MAX_BATCH);
        try {
          const response = await model.batchEmbedContents({
            requests: batch.map((text) => ({ content: { role: "user", parts: [{ text }] }, taskType: TaskType.RETRIEVAL_DOCUMENT })),
          });
          if (response.embeddings.length !== batch.length) {
            throw new Error(`expected ${batch.length} embeddings, got ${response.embeddings.length}`);
          }
          vectors.push(...response.embeddings.map((embedding) => embedding.values));
        } catch (error) {
          throw toProviderError(error, "embed");
        }
      }
      return vectors;
    },
  };
}
