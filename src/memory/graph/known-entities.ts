import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/database.js";
import { entities } from "../../db/schema/index.js";
import { MAX_KNOWN_ENTITIES } from "../../providers/prompts.js";
import type { KnownEntity } from "../../providers/types.js";

/** The user's current entities, most recently changed first, as the extraction prompt shows them (the user's own node is "user"). */
export async function knownEntities(db: Database, scope: { appId: string; userId: string }): Promise<KnownEntity[]> {
  const rows = await db
    .select({ name: entities.name, kind: entities.kind, aliases: entities.aliases })
    .from(entities)
    .where(and(eq(entities.appId, scope.appId), eq(entities.userId, scope.userId), isNull(entities.expiredAt), eq(entities.self, false)))
    .orderBy(desc(entities.updatedAt))
    .limit(MAX_KNOWN_ENTITIES);
  return rows;
}
