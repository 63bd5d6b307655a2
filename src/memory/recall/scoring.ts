import type { RecalledMemory } from "./hybrid-recall.js";

/**
 * Weights of the final score: rank fusion first, then how relevant the memory is, how recent,
 * how important, how often used, how well retained. They sum to 1, so scores stay in 0-1.
 */
export const SCORE_WEIGHTS = { fused: 0.45, relevance: 0.2, recency: 0.1, importance: 0.1, access: 0.05, retention: 0.1 } as const;

/** Scores as the API shows them: four decimals. */
export const roundScore = (value: number) => Math.round(value * 10_000) / 10_000;

/** Days after which recency has halved. */
const RECENCY_HALF_LIFE_DAYS = 30;

export interface ScoredMemory extends RecalledMemory {
  /** Relevance to the query, 0-1: the better of cosine similarity and lexical coverage. */
  relevance: number;
  /** The weighted final score, 0-1. */
  finalScore: number;
}

export function relevanceOf(memory: Pick<RecalledMemory, "similarity" | "coverage">): number {
  return Math.max(0, Math.min(1, Math.max(memory.similarity, memory.coverage)));
}

/** Scores and orders recalled memories; `now` is the reference time (the `as_of` time if given). */
export function scoreMemories(recalled: RecalledMemory[], now: Date): ScoredMemory[] {
  const maxFused = Math.max(0, ...recalled.map((memory) => memory.score)) || 1;
  return recalled
    .map((memory) => {
      const relevance = relevanceOf(memory);
      const ageDays = Math.max(0, (now.getTime() - memory.validAt.getTime()) / 86_400_000);
      const recency = 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
      const access = Math.min(1, Math.log1p(memory.accessCount) / Math.log1p(20));
      const finalScore =
        SCORE_WEIGHTS.fused * (memory.score / maxFused) +
        SCORE_WEIGHTS.relevance * relevance +
        SCORE_WEIGHTS.recency * recency +
        SCORE_WEIGHTS.importance * memory.importance +
        SCORE_WEIGHTS.access * access +
        SCORE_WEIGHTS.retention * Math.min(1, memory.retention);
      // What a replaced statement says counts half, and never more than what replaced it.
      const weighed = memory.superseded ? finalScore * SUPERSEDED_WEIGHT : finalScore;
      return { ...memory, relevance, finalScore: roundScore(weighed) };
    })
    .map((memory, _index, all) => {
      const newer = all.filter((other) => memory.superseded?.some((replacement) => replacement.byId === other.id));
      const ceiling = Math.min(...newer.map((other) => other.finalScore));
      return newer.length > 0 && memory.finalScore >= ceiling ? { ...memory, finalScore: Math.max(0, ceiling - 0.0001) } : memory;
    })
    .sort((a, b) => b.finalScore - a.finalScore);
}

/** How much an episode whose statement was replaced still counts in search. */
const SUPERSEDED_WEIGHT = 0.5;
