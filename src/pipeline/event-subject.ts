import { and, eq } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { memories, sessions } from "../db/schema/index.js";

/**
 * Whether what a pipeline event is about still exists: the session it names, or else the user it
 * names (any session or memory). An event about erased data — an emit that was still on its way
 * when the user was erased — is dropped before it becomes a run, which would otherwise record the
 * user's ids after their erasure. A user who comes back later has sessions again, so nothing of
 * theirs is refused.
 */
export async function eventSubjectExists(db: Database, data: Record<string, unknown>): Promise<boolean> {
  const sessionId = typeof data["session_id"] === "string" ? data["session_id"] : undefined;
  if (sessionId) {
    const [session] = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sessionId)).limit(1);
    return session !== undefined;
  }
  const appId = typeof data["app_id"] === "string" ? data["app_id"] : undefined;
  const userId = typeof data["user_id"] === "string" ? data["user_id"] : undefined;
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
