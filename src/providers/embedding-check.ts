import { ProviderError } from "./types.js";

/**
 * Holds an embedding answer to what was asked: one vector per text (a short or long answer is
 * garbage, retried) of the configured size (another size is a misconfigured model, not retried:
 * vectors of two sizes can never be compared).
 */
export function checkVectors(provider: string, texts: number, vectors: number[][], dimensions: number): number[][] {
  if (vectors.length !== texts) throw new ProviderError(`${provider} embed returned ${vectors.length} vectors for ${texts} texts`, true);
  const wrong = vectors.find((vector) => vector.length !== dimensions);
  if (wrong) {
    throw new ProviderError(`${provider} embed returned vectors of ${wrong.length} dimensions, expected ${dimensions}`, false);
  }
  return vectors;
}
