import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";

export interface UnembeddedMemory {
  id: string;
  content: string;
}

/** Current memories that have no embedding yet, oldest first (M5: rows are written first). */
export async function findUnembedded(db: Database, limit: number, userScope?: { appId: string; userId: string }): Promise<UnembeddedMemory[]> {
  const scope = userScope ? sql`AND app_id = ${userScope.appId} AND user_id = ${userScope.userId}` : sql``;
  return queryRows<UnembeddedMemory>(
    db,
    sql`SELECT id, content FROM memories
         WHERE embedding IS NULL AND expired_at IS NULL ${scope}
         ORDER BY created_at LIMIT ${limit}`,
  );
}

/**
 * Fills embeddings in one statement. Only rows still without an embedding are touched, so a
 * batch that is retried after a crash never overwrites a newer vector.
 */
export async function storeEmbeddings(db: Database, model: string, items: { id: string; vector: number[] }[]): Promise<number> {
  if (items.length === 0) return 0;
  const payload = JSON.stringify(items.map((item) => ({ id: item.id, v: `[${item.vector.join(",")}]` })));
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE memories AS m
           SET embedding = e.v::halfvec, embedding_model = ${model}, embedded_at = now()
          FROM jsonb_to_recordset(${payload}::jsonb) AS e(id uuid, v text)
         WHERE m.id = e.id AND m.embedding IS NULL
        RETURNING m.id`,
  );
  return rows.length;
}
