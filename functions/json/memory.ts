import { z } from "zod";
import { SourceSchema } from "../../src/context/schemas.js";
import { MEMORY_TYPES, TRAIT_STAGES } from "../../src/db/schema/memories.js";
import { currentRetention, type RetentionClock } from "../../src/memory/lifecycle/retention.js";
import type { MemoryRow } from "../../src/memory/read/memory-read.js";
import type { Provenance } from "../../src/memory/read/provenance-read.js";
import type { LaterStatement } from "../../src/memory/recall/later-statements.js";
import type { Clock } from "../../src/util/clock.js";
import { Timestamp } from "./timestamp.js";

export const MemorySchema = z.object({
  id: z.uuid(),
  app_id: z.string(),
  user_id: z.string(),
  session_id: z.uuid().nullable(),
  type: z.enum(MEMORY_TYPES),
  subtype: z.string().nullable(),
  content: z.string(),
  /** A fact's key (`home:city`), when it has one. */
  key: z.string().nullable(),
  value: z.unknown(),
  importance: z.number(),
  confidence: z.number(),
  /** When it became true in the world. */
  valid_at: Timestamp,
  /** When it stopped being true in the world (a newer statement replaced it). */
  invalid_at: Timestamp.nullable(),
  created_at: Timestamp,
  /** When the memory stopped being current (forgotten, deleted, replaced). */
  expired_at: Timestamp.nullable(),
  version: z.number().int(),
  superseded_by: z.uuid().nullable(),
  access_count: z.number().int(),
  last_accessed_at: Timestamp,
  /** Computed when read, at the service's clock (absent in an export, which gives what is stored). */
  retention: z.number().optional(),
  pinned: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  /** Traits only. */
  trait: z
    .object({
      stage: z.enum(TRAIT_STAGES).nullable(),
      reinforcement_count: z.number().int(),
      contradiction_count: z.number().int(),
      first_observed_at: Timestamp.nullable(),
      last_reinforced_at: Timestamp.nullable(),
      window_end: Timestamp.nullable(),
    })
    .optional(),
  embedding_model: z.string().nullable(),
  embedded: z.boolean(),
  /** When what it records was first said: its earliest source event (its `valid_at` when it has none). */
  first_stated_at: Timestamp,
  /** When it was last said: its newest source event (a fact said again later is confirmed then). */
  last_confirmed_at: Timestamp,
  /** The events it was derived from (where the answer reads it with them). */
  sources: z.array(SourceSchema).optional(),
  /**
   * Facts: what the user said after the fact was last confirmed, in another session, near it by
   * meaning, best first: turns naming someone the fact named first (`names`: the names
   * used there), then the nearest — for the reader to weigh against the fact, whatever the
   * extractor made of it.
   */
  later_mentions: z
    .array(
      z.object({
        memory_id: z.uuid(),
        content: z.string(),
        said_at: Timestamp,
        similarity: z.number(),
        names: z.array(z.string()).optional(),
        sources: z.array(SourceSchema),
      }),
    )
    .optional(),
});
export type MemoryJson = z.infer<typeof MemorySchema>;

/** Retention as the API reports it: at the runtime's clock, at the scheduled decay's λ. */
export function retentionClock(deps: { decay: { lambda: number }; clock: Clock }): RetentionClock {
  return { lambda: deps.decay.lambda, now: deps.clock.now() };
}

/** What a memory's JSON is read with besides its row. */
export interface MemoryReading {
  provenance: Provenance;
  /** List its sources (a read of one memory, an export), or only their times (a listing). */
  withSources: boolean;
  /** A fact's later mentions, when they were looked for. */
  later?: readonly LaterStatement[];
}

/**
 * A memory's public JSON, with its retention computed at `at` (nothing stores it); without `at`
 * (the export: what is stored, the same in two exports of the same data) no retention.
 */
export function memoryJson(row: MemoryRow, at: RetentionClock | null, reading: MemoryReading): MemoryJson {
  const { provenance, later } = reading;
  return {
    id: row.id,
    app_id: row.appId,
    user_id: row.userId,
    session_id: row.sessionId,
    type: row.type,
    subtype: row.subtype,
    content: row.content,
    key: row.key,
    value: row.value ?? null,
    importance: row.importance,
    confidence: row.confidence,
    valid_at: row.validAt.toISOString(),
    invalid_at: row.invalidAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    expired_at: row.expiredAt?.toISOString() ?? null,
    version: row.version,
    superseded_by: row.supersededBy,
    access_count: row.accessCount,
    last_accessed_at: row.lastAccessedAt.toISOString(),
    ...(at ? { retention: currentRetention(row, at) } : {}),
    pinned: row.pinned,
    metadata: row.metadata,
    ...(row.type === "trait"
      ? {
          trait: {
            stage: row.traitStage,
            reinforcement_count: row.reinforcementCount,
            contradiction_count: row.contradictionCount,
            first_observed_at: row.firstObservedAt?.toISOString() ?? null,
            last_reinforced_at: row.lastReinforcedAt?.toISOString() ?? null,
            window_end: row.windowEnd?.toISOString() ?? null,
          },
        }
      : {}),
    embedding_model: row.embeddingModel,
    embedded: row.embedding !== null,
    first_stated_at: (provenance.firstStatedAt ?? row.validAt).toISOString(),
    last_confirmed_at: (provenance.lastConfirmedAt ?? row.validAt).toISOString(),
    ...(reading.withSources ? { sources: provenance.sources } : {}),
    ...(later
      ? {
          later_mentions: later.map((mention) => ({
            memory_id: mention.memoryId,
            content: mention.content,
            said_at: mention.at.toISOString(),
            similarity: Math.round(mention.similarity * 1000) / 1000,
            ...(mention.names.length > 0 ? { names: mention.names } : {}),
            sources: mention.sources,
          })),
        }
      : {}),
  };
}
