import { sql } from "drizzle-orm";
import { type Database, type Queryable, queryRows } from "../db/database.js";

/**
 * The lock every writer of one user's derived memory takes inside its transaction — replay,
 * consolidation, rebuild, erasure, one-user decay — so none of them interleaves with another,
 * across connections and processes. Transaction-scoped: it ends with the transaction.
 */
export async function lockUser(tx: Queryable, appId: string, userId: string): Promise<void> {
  // Length-prefixed, so ("a:b", "c") and ("a", "b:c") never share a lock key.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${appId.length}:${appId}:${userId}`}, 0))`);
}

/**
 * Runs `write` under the user lock unless the user (or the session, when given) is gone — for
 * bookkeeping a pipeline run writes outside consolidation (jobs, failure counts). Erasure holds the
 * same lock, so a run still in flight when its user is erased writes nothing that names them.
 */
export async function unlessErased(
  db: Database,
  subject: { appId: string; userId: string; sessionId?: string | undefined },
  write: (tx: Queryable) => Promise<void>,
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockUser(tx, subject.appId, subject.userId);
    const session = subject.sessionId === undefined ? sql`` : sql`AND id = ${subject.sessionId}`;
    const found = await queryRows(
      tx,
      sql`SELECT 1 FROM sessions WHERE app_id = ${subject.appId} AND user_id = ${subject.userId} ${session} LIMIT 1`,
    );
    if (found.length > 0) await write(tx);
  });
}
