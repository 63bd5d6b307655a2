import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { memoriesLockedInIdOrder } from "../row-lock-order.js";

export interface UnembeddedMemory {
  id: string;
  content: string;
}

/**
 * Current memories that need a vector from `model`: none yet (rows are written first), or one
 * made by another model (the configured model changed; vectors of two models are never compared).
 */
export function needsEmbedding(model: string): SQL {
  return sql`(embedding IS NULL OR embedding_model IS DISTINCT FROM ${model}) AND expired_at IS NULL`;
}

/** Whose memories to look at: one user's, optionally only what reflection writes (everything but episodes). */
export interface UnembeddedScope {
  appId: string;
  userId: string;
  reflected?: boolean;
}

function scopeFilter(scope: UnembeddedScope | undefined): SQL {
  if (!scope) return sql``;
  const reflected = scope.reflected ? sql` AND type <> 'episodic'` : sql``;
  return sql`AND app_id = ${scope.appId} AND user_id = ${scope.userId}${reflected}`;
}

/** Memories needing a vector from `model`, oldest first. */
export async function findUnembedded(db: Database, model: string, limit: number, userScope?: UnembeddedScope): Promise<UnembeddedMemory[]> {
  const scope = scopeFilter(userScope);
  return queryRows<UnembeddedMemory>(
    db,
    sql`SELECT id, content FROM memories
         WHERE ${needsEmbedding(model)} ${scope}
         ORDER BY created_at LIMIT ${limit}`,
  );
}

/**
 * Rows one statement of `storeEmbeddings` fills. Parsing a vector's text is most of the statement's
 * work (the embedded database spends about a millisecond on a 512-dimension one), and on the
 * embedded database a statement holds the one connection and the event loop for all of it.
 */
const ROWS_PER_STATEMENT = 16;

/**
 * Fills embeddings, `ROWS_PER_STATEMENT` rows a statement, locking the rows in id order
 * (row-lock-order). Only rows still needing a vector from this model are touched, so a batch that
 * is retried after a crash, whole or in part, never overwrites a newer vector.
 */
export async function storeEmbeddings(db: Database, model: string, items: { id: string; vector: number[] }[]): Promise<number> {
  let stored = 0;
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) {
    stored += await storeSome(db, model, items.slice(start, start + ROWS_PER_STATEMENT));
  }
  return stored;
}

async function storeSome(db: Database, model: string, items: { id: string; vector: number[] }[]): Promise<number> {
  if (items.length === 0) return 0;
  const payload = JSON.stringify(items.map((item) => ({ id: item.id, v: `[${item.vector.join(",")}]` })));
  const ids = items.map((item) => item.id);
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE memories AS m
           SET embedding = e.v::halfvec, embedding_model = ${model}, embedded_at = now()
          FROM jsonb_to_recordset(${payload}::jsonb) AS e(id uuid, v text),
               ${memoriesLockedInIdOrder(sql`m.id IN ${ids} AND (m.embedding IS NULL OR m.embedding_model IS DISTINCT FROM ${model})`)}
         WHERE m.id = e.id AND m.id = locked.id
        RETURNING m.id`,
  );
  return rows.length;
}
