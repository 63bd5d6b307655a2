import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/database.js";
import { memories, sessionEvents } from "../../db/schema/index.js";
import { conflict, DomainError } from "../../errors.js";
import { FACT_TYPES } from "../../providers/extraction.js";
import type { Embedder } from "../../providers/types.js";
import { withUsageScope } from "../../providers/usage-scope.js";
import { NO_REDACTION } from "../../redaction/policy.js";
import { type RedactionCounts, type RedactionPolicy, redactJson, redactText } from "../../redaction/redact.js";
import type { Clock } from "../../util/clock.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";
import type { SourceRef } from "../provenance.js";
import { getMemory } from "../read/memory-read.js";
import { current } from "../visibility.js";
import { type AppliedOperation, consolidate } from "./consolidate.js";
import type { CandidateBatch } from "./extraction-grounding.js";
import { snapshot, writeHistory } from "./memory-writes.js";

const Base = {
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  content: z.string().trim().min(1).max(5000),
  importance: z.number().min(0).max(1).default(0.6),
  valid_at: z.iso.datetime({ offset: true }).optional(),
  /** Events of this user that the memory comes from. */
  source_event_ids: z.array(z.uuid()).max(100).default([]),
};

/** An insight written directly: free text about the user, no key. */
export const CreateInsightSchema = z.strictObject({ ...Base, type: z.literal("insight") });

/** Structured ingestion: facts and insights written without the LLM, through the same consolidation. */
export const CreateMemorySchema = z.discriminatedUnion("type", [
  z.strictObject({
    ...Base,
    type: z.literal("semantic"),
    subtype: z.enum(FACT_TYPES),
    key: z.string().trim().min(1).max(120),
    value: z.union([z.record(z.string(), z.unknown()), z.string(), z.number(), z.boolean()]),
    confidence: z.number().min(0).max(1).default(1),
  }),
  CreateInsightSchema,
]);
export type CreateMemory = z.infer<typeof CreateMemorySchema>;

/**
 * Adds a fact or insight through consolidation (actor "api"): the same dedup, supersede and
 * history rules as the pipeline apply, so structured ingestion cannot leave a contradiction.
 */
export async function createMemory(
  deps: { db: Database; embedder: Embedder; clock: Clock; redaction?: RedactionPolicy },
  submitted: CreateMemory,
): Promise<AppliedOperation> {
  const input = redactMemory(submitted, deps.redaction ?? NO_REDACTION);
  const sources = await resolveSources(deps.db, input);
  const now = deps.clock.now();
  const validAt = input.valid_at ? new Date(input.valid_at) : now;
  const grounded = { sources, validAt, sessionId: sources[0]?.session_id ?? null };
  const batch: CandidateBatch =
    input.type === "semantic"
      ? {
          facts: [
            {
              type: input.subtype,
              key: input.key.toLowerCase().replace(/\s+/g, "_"),
              value: input.value,
              content: input.content,
              confidence: input.confidence,
              operation: "ADD",
              importance: input.importance,
              ...grounded,
            },
          ],
          insights: [],
          traits: [],
        }
      : { facts: [], insights: [{ content: input.content, importance: input.importance, ...grounded }], traits: [] };
  const scope = { appId: input.app_id, userId: input.user_id };
  const operations = await withUsageScope({ ...scope, stage: "write" }, () => consolidate(deps, scope, batch, { actor: "api", now }));
  // Candidates are applied in order and each reports its own operation first.
  const operation = operations[0];
  if (!operation) throw new Error("consolidation reported no operation for the memory");
  return operation;
}

/** Write-time redaction of what the memory says (its scope — user, app, sources — is left as sent). */
function redactMemory(input: CreateMemory, redaction: RedactionPolicy): CreateMemory {
  if (redaction.size === 0) return input;
  const counts: RedactionCounts = {};
  const content = redactText(input.content, redaction, counts);
  return input.type === "semantic"
    ? { ...input, content, key: redactText(input.key, redaction, counts), value: redactJson(input.value, redaction, counts) }
    : { ...input, content };
}

async function resolveSources(db: Database, input: CreateMemory): Promise<SourceRef[]> {
  if (input.source_event_ids.length === 0) return [];
  const rows = await db
    .select({ event_id: sessionEvents.id, session_id: sessionEvents.sessionId, seq: sessionEvents.seq })
    .from(sessionEvents)
    .where(
      and(
        inArray(sessionEvents.id, input.source_event_ids),
        eq(sessionEvents.appId, input.app_id),
        eq(sessionEvents.userId, input.user_id),
      ),
    );
  const missing = input.source_event_ids.filter((id) => !rows.some((row) => row.event_id === id));
  if (missing.length > 0) {
    throw new DomainError("unprocessable", `source events not found for this user: ${missing.join(", ")}`, {
      field: "source_event_ids",
      missing,
    });
  }
  return rows;
}

/** Soft delete: the memory expires at `now` and keeps its history; deleting twice is harmless. */
export async function deleteMemory(db: Database, id: string, now: Date, actor = "api") {
  const { row } = await getMemory(db, id);
  if (row.expiredAt) {
    if (row.supersededBy)
      throw conflict(`memory ${id} was superseded by ${row.supersededBy}; delete the current version`, { superseded_by: row.supersededBy });
    return row;
  }
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(memories)
      .set({ expiredAt: now, updatedAt: now })
      .where(and(eq(memories.id, id), current(memories)))
      .returning();
    if (!updated) return (await getMemory(db, id)).row;
    await writeHistory(tx, {
      memoryId: id,
      appId: row.appId,
      userId: row.userId,
      operation: "DELETE",
      actor,
      before: snapshot(row),
      after: snapshot(updated),
      reason: "deleted through the API",
      at: now,
    });
    return updated;
  });
}

export const PatchMemorySchema = z.strictObject({ pinned: z.boolean() });

/** Pins (or unpins) a memory: pinned memories are never forgotten by decay. History records it. */
export async function setPinned(db: Database, id: string, pinned: boolean, now: Date) {
  const { row } = await getMemory(db, id);
  if (row.pinned === pinned) return row;
  return db.transaction(async (tx) => {
    const [updated] = await tx.update(memories).set({ pinned, updatedAt: now }).where(eq(memories.id, id)).returning();
    if (!updated) throw new Error(`memory ${id} vanished while pinning`);
    await writeHistory(tx, {
      memoryId: id,
      appId: row.appId,
      userId: row.userId,
      operation: "UPDATE",
      actor: "api",
      before: { pinned: row.pinned },
      after: { pinned },
      reason: pinned ? "pinned" : "unpinned",
      at: now,
    });
    return updated;
  });
}
