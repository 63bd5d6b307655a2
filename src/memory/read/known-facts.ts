import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import { MAX_KNOWN_FACTS } from "../../providers/prompts.js";
import type { KnownFact } from "../../providers/types.js";
import { liveAt, ownedBy } from "../visibility.js";

/** The user's current facts, most recently changed first, as the extraction prompt shows them. */
export async function knownFacts(db: Database, scope: { appId: string; userId: string }, now: Date): Promise<KnownFact[]> {
  const rows = await db
    .select({ key: memories.key, value: memories.value, content: memories.content })
    .from(memories)
    .where(and(ownedBy(memories, scope), eq(memories.type, "semantic"), liveAt(memories, now)))
    .orderBy(desc(memories.validAt))
    .limit(MAX_KNOWN_FACTS);
  return rows.flatMap((row) => (row.key ? [{ key: row.key, value: row.value, content: row.content }] : []));
}
