import { and, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/database.js";
import { MEMORY_TYPES, type MemoryType, memories } from "../../db/schema/index.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";
import { NO_PROVENANCE, provenanceOf } from "../read/provenance-read.js";
import { liveAt, notDissolved, ownedBy } from "../visibility.js";

export const MemoryIndexQuerySchema = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  type: z.enum(MEMORY_TYPES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type MemoryIndexQuery = z.infer<typeof MemoryIndexQuerySchema>;

export const ExpandMemoriesSchema = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  ids: z.array(z.uuid()).min(1).max(100),
});

export interface IndexEntry {
  id: string;
  type: MemoryType;
  when: string;
  summary: string;
  importance: number;
}

const SUMMARY_WORDS = 12;

/** "just now", "5 minutes ago", "3 days ago" … relative to `now`. */
export function timeAgo(date: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - date.getTime()) / 1000));
  const units: [number, string][] = [
    [31_536_000, "year"],
    [2_592_000, "month"],
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
  ];
  for (const [size, unit] of units) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${unit}${count > 1 ? "s" : ""} ago`;
  }
  return "just now";
}

/**
 * A compact index of a user's current memories for a prompt: one line per memory with its
 * id, age, a short summary and importance, most important first. An agent that needs more asks
 * for the ids (expand).
 */
export async function memoryIndex(db: Database, query: MemoryIndexQuery, now: Date): Promise<{ entries: IndexEntry[]; text: string }> {
  const conditions = [
    ownedBy(memories, { appId: query.app_id, userId: query.user_id }),
    liveAt(memories, now),
    notDissolved(memories),
    ...(query.type ? [eq(memories.type, query.type)] : []),
  ];
  const rows = await db
    .select({ id: memories.id, type: memories.type, content: memories.content, importance: memories.importance, validAt: memories.validAt })
    .from(memories)
    .where(and(...conditions))
    .orderBy(desc(memories.importance), desc(memories.validAt))
    .limit(query.limit);
  const entries = rows.map((row) => {
    const words = row.content.split(/\s+/);
    return {
      id: row.id,
      type: row.type,
      when: timeAgo(row.validAt, now),
      summary: words.length > SUMMARY_WORDS ? `${words.slice(0, SUMMARY_WORDS).join(" ")}…` : row.content,
      importance: Math.round(row.importance * 100) / 100,
    };
  });
  return {
    entries,
    text: entries
      .map((entry) => `[${entry.id}] (${entry.when}, ${entry.type}, importance ${entry.importance}) ${entry.summary}`)
      .join("\n"),
  };
}

/** The full memories behind index ids, with sources; ids of other users are simply not found. */
export async function expandMemories(db: Database, input: z.infer<typeof ExpandMemoriesSchema>) {
  const rows = await db
    .select()
    .from(memories)
    .where(and(ownedBy(memories, { appId: input.app_id, userId: input.user_id }), inArray(memories.id, input.ids)));
  const provenance = await provenanceOf(
    db,
    rows.map((row) => row.id),
  );
  const found = new Set(rows.map((row) => row.id));
  return {
    memories: rows.map((row) => ({ row, provenance: provenance.get(row.id) ?? NO_PROVENANCE })),
    missing: input.ids.filter((id) => !found.has(id)),
  };
}
