import { randomUUID } from "node:crypto";
import { and, eq, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { type HistoryOperation, memories, memoryHistory, memorySources } from "../../db/schema/index.js";
import type { SourceRef } from "../provenance.js";

export type MemoryInsert = typeof memories.$inferInsert;
export type MemoryRecord = typeof memories.$inferSelect;

/** The fields of a memory that history shows before and after a change. */
export function snapshot(row: Partial<MemoryRecord>): Record<string, unknown> {
  const fields = [
    "content",
    "type",
    "subtype",
    "key",
    "value",
    "confidence",
    "importance",
    "validAt",
    "invalidAt",
    "expiredAt",
    "version",
    "supersededBy",
    "traitStage",
    "reinforcementCount",
    "contradictionCount",
  ] as const;
  return Object.fromEntries(fields.filter((field) => row[field] !== undefined).map((field) => [field, row[field]]));
}

export async function writeHistory(
  tx: Queryable,
  entry: {
    memoryId: string;
    appId: string;
    userId: string;
    operation: HistoryOperation;
    actor: string;
    before?: unknown;
    after?: unknown;
    reason?: string;
    /** When it happened, on the runtime's clock. */
    at: Date;
  },
): Promise<void> {
  await tx.insert(memoryHistory).values({
    createdAt: entry.at,
    id: randomUUID(),
    memoryId: entry.memoryId,
    appId: entry.appId,
    userId: entry.userId,
    operation: entry.operation,
    actor: entry.actor,
    before: entry.before ?? null,
    after: entry.after ?? null,
    reason: entry.reason ?? null,
  });
}

export async function addSources(tx: Queryable, memoryId: string, sources: SourceRef[]): Promise<void> {
  if (sources.length === 0) return;
  await tx
    .insert(memorySources)
    .values(sources.map((source) => ({ memoryId, eventId: source.event_id, sessionId: source.session_id, seq: source.seq })))
    .onConflictDoNothing();
}

/**
 * Inserts a memory with its sources and an ADD history row, created (and last accessed) at `now`;
 * `history` adds to what the row's `after` says (the operation an extractor stated, say).
 */
export async function insertMemory(
  tx: Queryable,
  row: MemoryInsert & { id: string },
  sources: SourceRef[],
  actor: string,
  now: Date,
  reason?: string,
  history?: Record<string, unknown>,
): Promise<void> {
  await insertMemories(tx, [{ row, sources, ...(reason ? { reason } : {}), ...(history ? { history } : {}) }], actor, now);
}

/**
 * The extractor a memory's metadata records (what wrote it), for its history rows: present on
 * what an extraction wrote, absent on what the API or fast replay wrote.
 */
export function extractorOf(metadata: unknown): { extractor: unknown } | Record<string, never> {
  const extractor = metadata && typeof metadata === "object" ? (metadata as Record<string, unknown>)["extractor"] : undefined;
  return extractor === undefined ? {} : { extractor };
}

/** Inserts many memories with their sources and ADD history rows in three statements; their system times are `now`. */
export async function insertMemories(
  tx: Queryable,
  entries: { row: MemoryInsert & { id: string }; sources: SourceRef[]; reason?: string; history?: Record<string, unknown> }[],
  actor: string,
  now: Date,
): Promise<void> {
  if (entries.length === 0) return;
  await tx.insert(memories).values(entries.map((entry) => ({ createdAt: now, lastAccessedAt: now, updatedAt: now, ...entry.row })));
  const sources = entries.flatMap((entry) =>
    entry.sources.map((source) => ({ memoryId: entry.row.id, eventId: source.event_id, sessionId: source.session_id, seq: source.seq })),
  );
  if (sources.length > 0) await tx.insert(memorySources).values(sources).onConflictDoNothing();
  await tx.insert(memoryHistory).values(
    entries.map((entry) => ({
      id: randomUUID(),
      memoryId: entry.row.id,
      appId: entry.row.appId,
      userId: entry.row.userId,
      operation: "ADD" as const,
      actor,
      after: { ...snapshot(entry.row), ...extractorOf(entry.row.metadata), ...entry.history },
      reason: entry.reason ?? null,
      createdAt: now,
    })),
  );
}

/** The rows of one user's memories of one type under one key (a fact's or a trait's identity). */
export function sameKey(scope: { appId: string; userId: string }, type: MemoryRecord["type"], key: string): SQL {
  return and(eq(memories.appId, scope.appId), eq(memories.userId, scope.userId), eq(memories.type, type), eq(memories.key, key)) as SQL;
}
