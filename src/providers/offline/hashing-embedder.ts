import type { Embedder } from "../types.js";

const DIMENSIONS = 256;

/**
 * Feature hashing of lower-cased words and word pairs into 256 signed buckets, L2-normalised:
 * lexical similarity only, no model, no network, a few microseconds per text. The offline
 * embedder where USE-lite cannot run (Workers without a Gemini key); its model id keeps its
 * vectors apart from every other model's.
 */
export function createHashingEmbedder(): Embedder {
  return {
    model: `hashing-${DIMENSIONS}`,
    dimensions: DIMENSIONS,
    embed: async (texts) => texts.map(embedOne),
  };
}

function embedOne(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const features = [...words, ...words.slice(1).map((word, index) => `${words[index]} ${word}`)];
  for (const feature of features) {
    const hash = fnv1a(feature);
    vector[hash % DIMENSIONS] = (vector[hash % DIMENSIONS] as number) + ((hash >>> 31) & 1 ? -1 : 1);
  }
  const norm = Math.hypot(...vector);
  // An empty text still gets a valid unit vector: halfvec cosine distance is undefined for zero.
  return norm === 0 ? vector.map((_, index) => (index === 0 ? 1 : 0)) : vector.map((value) => value / norm);
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
