import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.js";
import { memories, sessions } from "../db/schema/index.js";
import { lockUser } from "../memory/user-lock.js";

/**
 * Whether what a pipeline event is about still exists: the session it names, or else the user it
 * names (any session or memory). An event about erased data — an emit that was still on its way
 * when the user was erased — is dropped before it becomes a run, which would otherwise record the
 * user's ids after their erasure. A user who comes back later has sessions again, so nothing of
 * theirs is refused. Called in the transaction that enqueues the run, it takes the user lock that
 * erasure holds: the run is either committed before erasure deletes the user's runs, or checked
 * after the user is gone — never written behind an erasure's back (on a real Postgres the check
 * and the insert are otherwise two moments apart).
 */
export async function eventSubjectExists(db: Queryable, data: Record<string, unknown>): Promise<boolean> {
  const appId = typeof data["app_id"] === "string" ? data["app_id"] : undefined;
  const userId = typeof data["user_id"] === "string" ? data["user_id"] : undefined;
  if (appId && userId) await lockUser(db, appId, userId);
  const sessionId = typeof data["session_id"] === "string" ? data["session_id"] : undefined;
  if (sessionId) {
    const [session] = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sessionId)).limit(1);
    return session !== undefined;
  }
  if (!appId || !userId) return true;
  const [session] = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.appId, appId), eq(sessions.userId, userId)))
    .limit(1);
  if (session) return true;
  const [memory] = await db
    .select({ id: memories.id })
    .from(memories)
    .where(and(eq(memories.appId, appId), eq(memories.userId, userId)))
    .limit(1);
  return memory !== undefined;
}
