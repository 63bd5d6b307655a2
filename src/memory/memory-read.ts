import { and, asc, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/database.js";
import { MEMORY_TYPES, memories, memorySources } from "../db/schema/index.js";
import { notFound } from "../errors.js";

export type MemoryRow = typeof memories.$inferSelect;

export const ListMemoriesQuerySchema = z.strictObject({
  user_id: z.string().trim().min(1).max(200),
  app_id: z.string().trim().min(1).max(200).default("default"),
  type: z.enum(MEMORY_TYPES).optional(),
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

export async function listMemories(db: Database, query: ListMemoriesQuery): Promise<MemoryRow[]> {
  const conditions = [eq(memories.appId, query.app_id), eq(memories.userId, query.user_id)];
  if (query.type) conditions.push(eq(memories.type, query.type));
  if (query.include_expired === "false") conditions.push(isNull(memories.expiredAt));
  return db.select().from(memories).where(and(...conditions)).orderBy(desc(memories.createdAt)).limit(query.limit);
}
