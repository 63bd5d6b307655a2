import { and, asc, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/database.js";
import { MEMORY_TYPES, memories, memoryHistory } from "../../db/schema/index.js";
import { notFound } from "../../errors.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";
import { type LaterStatement, laterStatements } from "../recall/later-statements.js";
import { keptForAsOf, liveAt, notDissolved, ownedBy, trueAt } from "../visibility.js";
import { NO_PROVENANCE, type Provenance, provenanceOf } from "./provenance-read.js";

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

/** One memory, with the events it came from and when they were said. */
export async function getMemory(db: Database, id: string): Promise<{ row: MemoryRow; provenance: Provenance }> {
  if (!UUID.safeParse(id).success) throw notFound("memory", id);
  const [row] = await db.select().from(memories).where(eq(memories.id, id));
  if (!row) throw notFound("memory", id);
  return { row, provenance: (await provenanceOf(db, [id])).get(id) ?? NO_PROVENANCE };
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

/**
 * Each current fact's later mentions (`laterStatements`): the user's turns since it was last
 * confirmed, in other sessions, that say something of the user and are nearest to it by meaning,
 * best first. Facts of one user, as a listing holds.
 */
export async function laterMentionsOfFacts(
  db: Database,
  rows: readonly MemoryRow[],
  provenance: ReadonlyMap<string, Provenance>,
  options: { now: Date; minSimilarity: number; byName: boolean; inQuestions: boolean; perFact: number },
): Promise<Map<string, LaterStatement[]>> {
  const facts = rows.filter((row) => row.type === "semantic" && row.expiredAt === null);
  const first = facts[0];
  if (!first) return new Map();
  return laterStatements(
    db,
    { appId: first.appId, userId: first.userId },
    facts.map((row) => ({ id: row.id, after: provenance.get(row.id)?.lastConfirmedAt ?? row.validAt })),
    {
      perStatement: options.perFact,
      minSimilarity: options.minSimilarity,
      byName: options.byName,
      inQuestions: options.inQuestions,
      now: options.now,
    },
  );
}
