import { sql } from "drizzle-orm";
import type { Queryable } from "../db/database.js";

/**
 * The lock every writer of one user's derived memory takes inside its transaction — replay,
 * consolidation, rebuild, erasure, one-user decay (C5) — so none of them interleaves with another,
 * across connections and processes. Transaction-scoped: it ends with the transaction.
 */
export async function lockUser(tx: Queryable, appId: string, userId: string): Promise<void> {
  // Length-prefixed, so ("a:b", "c") and ("a", "b:c") never share a lock key.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${appId.length}:${appId}:${userId}`}, 0))`);
}
