import { and, desc, eq, gt, isNull, or } from "drizzle-orm";
import type { Database } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import { MAX_KNOWN_FACTS } from "../../providers/prompts.js";
import type { KnownFact } from "../../providers/types.js";

/** The user's current facts, most recently changed first, as the extraction prompt shows them. */
export async function knownFacts(db: Database, scope: { appId: string; userId: string }, now: Date): Promise<KnownFact[]> {
  const rows = await db
    .select({ key: memories.key, value: memories.value, content: memories.content })
    .from(memories)
    .where(
      and(
        eq(memories.appId, scope.appId),
        eq(memories.userId, scope.userId),
        eq(memories.type, "semantic"),
        isNull(memories.expiredAt),
        or(isNull(memories.invalidAt), gt(memories.invalidAt, now)),
      ),
    )
    .orderBy(desc(memories.validAt))
    .limit(MAX_KNOWN_FACTS);
  return rows.flatMap((row) => (row.key ? [{ key: row.key, value: row.value, content: row.content }] : []));
}
