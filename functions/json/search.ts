import { z } from "zod";
import { SourceSchema } from "../../src/context/schemas.js";
import { MEMORY_TYPES } from "../../src/db/schema/memories.js";
import { roundScore, type ScoredMemory } from "../../src/memory/recall/scoring.js";
import type { LeftOut } from "../../src/memory/recall/search.js";
import { RecallSignalsSchema, rankingSummary, recallSignals } from "../../src/memory/recall/signals.js";
import { Timestamp } from "./timestamp.js";

/** A search hit; with `explain` also its retrieval receipt (`signals`, `why`). */
export const ScoredMemorySchema = z.object({
  id: z.uuid(),
  type: z.enum(MEMORY_TYPES),
  subtype: z.string().nullable(),
  content: z.string(),
  valid_at: Timestamp,
  /** When what it records was first said (its earliest source event), and last said (its newest: a fact restated later is confirmed then). */
  first_stated_at: Timestamp,
  last_confirmed_at: Timestamp,
  /** The final score that orders the hits (0-1). */
  score: z.number(),
  /** The better of cosine similarity and lexical coverage (0-1). */
  relevance: z.number(),
  similarity: z.number(),
  importance: z.number(),
  sources: z.array(SourceSchema),
  /** On an episode whose statements were replaced: each change, when, and what holds now (`by` null: retracted). */
  superseded: z.array(z.object({ at: Timestamp, by: z.string().nullable(), by_id: z.uuid().nullable() })).nullable(),
  signals: RecallSignalsSchema.optional(),
  why: z.string().optional(),
});

/** A search candidate that was not returned, and why. */
export const LeftOutSchema = z.object({
  id: z.uuid(),
  type: z.enum(MEMORY_TYPES),
  content: z.string(),
  score: z.number(),
  relevance: z.number(),
  signals: RecallSignalsSchema,
  because: z.enum(["below_relevance", "beyond_limit"]),
});

/** A search result; with `explainedAt` (the scores' reference time) also its retrieval receipt. */
export function scoredMemoryJson(memory: ScoredMemory, explainedAt?: Date): z.infer<typeof ScoredMemorySchema> {
  return {
    id: memory.id,
    type: memory.type,
    subtype: memory.subtype,
    content: memory.content,
    valid_at: memory.validAt.toISOString(),
    first_stated_at: memory.firstStatedAt.toISOString(),
    last_confirmed_at: memory.lastConfirmedAt.toISOString(),
    score: memory.finalScore,
    relevance: roundScore(memory.relevance),
    similarity: roundScore(memory.similarity),
    importance: memory.importance,
    sources: memory.sources,
    superseded: memory.superseded
      ? memory.superseded.map((replacement) => ({ at: replacement.at.toISOString(), by: replacement.by, by_id: replacement.byId }))
      : null,
    ...(explainedAt ? { signals: recallSignals(memory, explainedAt), why: whyFound(memory) } : {}),
  };
}

function whyFound(memory: ScoredMemory): string {
  if (memory.vectorRank === null && memory.textRank === null) return "the statement that replaced a hit's, ranked just above it";
  return `final score ${memory.finalScore} (fused rank, relevance ${memory.relevance.toFixed(2)}, recency, importance, use, retention): ${rankingSummary(memory)}`;
}

export function leftOutJson({ memory, because }: LeftOut, now: Date): z.infer<typeof LeftOutSchema> {
  return {
    id: memory.id,
    type: memory.type,
    content: memory.content,
    score: memory.finalScore,
    relevance: roundScore(memory.relevance),
    signals: recallSignals(memory, now),
    because,
  };
}
