import { checkVectors } from "../embedding-check.js";
import { createEmbeddingQueue } from "../embedding-queue.js";
import type { Embedder } from "../types.js";
import { type OpenAICompatibleOptions, openAIClient, openAIModelId } from "./openai-client.js";
import { toProviderError } from "./openai-errors.js";

/** Inputs per request: well under OpenAI's 2,048 and small enough for a local server's batch. */
const MAX_BATCH = 64;

/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint, `concurrency` requests at once
 * behind one queue (queries before backfill; a 429 holds every request back for the server's
 * `retry-after`). With `dimensions` the size is requested (models that can shorten their vectors)
 * and checked; without it the size is whatever the model returns, learned from the first answer
 * and then held to.
 */
export function createOpenAIEmbedder(options: OpenAICompatibleOptions & { dimensions?: number; concurrency?: number }): Embedder {
  const client = openAIClient(options);
  let dimensions = options.dimensions ?? 0;
  const queue = createEmbeddingQueue({
    slots: options.concurrency ?? 4,
    maxBatchTexts: MAX_BATCH,
    async run(batch) {
      let data: { index: number; embedding: number[] }[];
      try {
        ({ data } = await client.embeddings.create({
          model: options.model,
          input: batch,
          encoding_format: "float",
          ...(options.dimensions ? { dimensions: options.dimensions } : {}),
        }));
      } catch (error) {
        throw toProviderError(error, "embed");
      }
      const ordered = [...data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
      dimensions ||= ordered[0]?.length ?? 0;
      return checkVectors("OpenAI-compatible", batch.length, ordered, dimensions);
    },
  });
  return {
    model: `${openAIModelId(options)}${options.dimensions ? `@${options.dimensions}` : ""}`,
    get dimensions() {
      return dimensions;
    },
    queue,
    embed: (texts, embedOptions) => queue.embed(texts, embedOptions?.priority ?? "background"),
  };
}
