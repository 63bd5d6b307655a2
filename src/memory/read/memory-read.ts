import { and, asc, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/database.js";
import { MEMORY_TYPES, memories, memoryHistory, memorySources } from "../../db/schema/index.js";
import { notFound } from "../../errors.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";
import { keptForAsOf, liveAt, notDissolved, ownedBy, trueAt } from "../visibility.js";

export type MemoryRow = typeof memories.$inferSelect;

export const ListMemoriesQuerySchema = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  type: z.enum(MEMORY_TYPES).optional(),
  subtype: z.string().min(1).max(100).optional(),
  key: z.string().min(1).max(200).optional(),
  session_id: z.uuid().optional(),
  /** Time slice: only memories whose `valid_at` is in [from, to). */
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  /** World as it was at this time: valid then, and not deleted since. */
  as_of: z.iso.datetime({ offset: true }).optional(),
  include_expired: z.enum(["true", "false"]).default("false"),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type ListMemoriesQuery = z.infer<typeof ListMemoriesQuerySchema>;

const UUID = z.uuid();

export async function getMemory(db: Database, id: string) {
  if (!UUID.safeParse(id).success) throw notFound("memory", id);
  const [row] = await db.select().from(memories).where(eq(memories.id, id));
  if (!row) throw notFound("memory", id);
  const sources = await db
    .select({ session_id: memorySources.sessionId, event_id: memorySources.eventId, seq: memorySources.seq })
    .from(memorySources)
    .where(eq(memorySources.memoryId, id))
    .orderBy(asc(memorySources.seq));
  return { row, sources };
}

/**
 * A user's memories, newest first. By default only current ones (not expired, valid now);
 * `as_of` gives those valid at that time, superseded versions included (bi-temporal), but
 * never deleted ones; `include_expired` lists every version.
 */
export async function listMemories(db: Database, query: ListMemoriesQuery, now: Date): Promise<MemoryRow[]> {
  return listMemoriesQuery(db, query, now);
}

/** The listing as a query builder, so its plan can be inspected (EXPLAIN) as well as run. */
export function listMemoriesQuery(db: Database, query: ListMemoriesQuery, now: Date) {
  const conditions: (SQL | undefined)[] = [ownedBy(memories, { appId: query.app_id, userId: query.user_id })];
  if (query.type) conditions.push(eq(memories.type, query.type));
  if (query.subtype) conditions.push(eq(memories.subtype, query.subtype));
  if (query.key) conditions.push(eq(memories.key, query.key));
  if (query.session_id) conditions.push(eq(memories.sessionId, query.session_id));
  if (query.from) conditions.push(gte(memories.validAt, new Date(query.from)));
  if (query.to) conditions.push(lt(memories.validAt, new Date(query.to)));
  if (query.as_of) {
    conditions.push(trueAt(memories, new Date(query.as_of)), keptForAsOf(memories));
  } else if (query.include_expired === "false") {
    // A dissolved trait no longer describes the user: listed only with every version.
    conditions.push(liveAt(memories, now), notDissolved(memories));
  }
  return db
    .select()
    .from(memories)
    .where(and(...conditions))
    .orderBy(desc(memories.validAt), desc(memories.createdAt))
    .limit(query.limit);
}

export async function getMemoryHistory(db: Database, id: string) {
  const { row } = await getMemory(db, id);
  const entries = await db
    .select()
    .from(memoryHistory)
    .where(eq(memoryHistory.memoryId, id))
    .orderBy(asc(memoryHistory.createdAt), asc(memoryHistory.position));
  return { memory: row, entries };
}
