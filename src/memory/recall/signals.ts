import { z } from "zod";
import type { RecalledMemory } from "./hybrid-recall.js";
import { roundScore } from "./scoring.js";

/**
 * Why recall ranked a memory where it did (retrieval receipts): its place in each ranking that
 * found it, the scores behind those places, and the memory's own weights.
 */
export const RecallSignalsSchema = z.object({
  /** Place in the vector ranking (1 = nearest); null when it did not find the memory. */
  vector_rank: z.number().int().nullable(),
  /** Cosine similarity to the query (0 when found by text only). */
  similarity: z.number(),
  /** Place in the BM25 full-text ranking; null when it did not find the memory. */
  bm25_rank: z.number().int().nullable(),
  /** Share of the query's BM25 weight the memory's words match (0-1). */
  coverage: z.number(),
  /** Reciprocal-rank-fusion score over all the channels' rankings. */
  fused_score: z.number(),
  /**
   * Every channel that found it (vector, text, graph…), with its place there and, for a channel
   * that says, how it reached the memory: the graph's "Maya → teacher → Mr. Ortiz, 2 hops".
   */
  channels: z.array(z.object({ channel: z.string(), rank: z.number().int(), via: z.string().optional() })),
  /** What a well-ranked turn just before or after it in its session added to its fused score. */
  neighbour_boost: z.number(),
  /** Days since the memory became valid. */
  age_days: z.number(),
  importance: z.number(),
  retention: z.number(),
  /** What it says was replaced by a newer statement. */
  superseded: z.boolean(),
});
export type RecallSignals = z.infer<typeof RecallSignalsSchema>;

export function recallSignals(memory: RecalledMemory, now: Date): RecallSignals {
  return {
    vector_rank: memory.vectorRank,
    similarity: roundScore(memory.similarity),
    bm25_rank: memory.textRank,
    coverage: roundScore(memory.coverage),
    fused_score: roundScore(memory.fused),
    channels: memory.channels.map((place) => ({ ...place })),
    neighbour_boost: roundScore(memory.neighbourBoost),
    age_days: roundScore(Math.max(0, (now.getTime() - memory.validAt.getTime()) / 86_400_000)),
    importance: roundScore(memory.importance),
    retention: roundScore(memory.retention),
    superseded: memory.superseded !== null,
  };
}

/**
 * "vector #2 (similarity 0.61), BM25 #1 (coverage 0.8), beside a well-ranked turn": which
 * channels found it, how well, and whether a neighbouring turn lifted it. A channel besides vector
 * and text says where it placed the memory and how it reached it ("graph #3 (Maya, 2 hops)").
 */
export function rankingSummary(memory: RecalledMemory): string {
  const found = [
    ...(memory.vectorRank !== null ? [`vector #${memory.vectorRank} (similarity ${memory.similarity.toFixed(2)})`] : []),
    ...(memory.textRank !== null ? [`BM25 #${memory.textRank} (coverage ${memory.coverage.toFixed(2)})`] : []),
    ...memory.channels
      .filter((place) => place.channel !== "vector" && place.channel !== "text")
      .map((place) => `${place.channel} #${place.rank}${place.via ? ` (${place.via})` : ""}`),
    ...(memory.neighbourBoost > 0 ? ["beside a well-ranked turn of its session"] : []),
  ];
  return found.length > 0 ? found.join(", ") : "no ranking";
}
