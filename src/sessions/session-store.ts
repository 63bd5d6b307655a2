import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { sessions } from "../db/schema/index.js";
import { notFound } from "../errors.js";
import type { CreateSession, ListSessionsQuery } from "./schemas.js";

export type SessionRow = typeof sessions.$inferSelect;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A session id that is not even a UUID names no session: answer 404, not a database cast error. */
export function assertSessionId(id: string): void {
  if (!UUID_PATTERN.test(id)) throw notFound("session", id);
}

export async function createSession(db: Database, input: CreateSession, now: Date): Promise<SessionRow> {
  const [row] = await db
    .insert(sessions)
    .values({
      id: randomUUID(),
      appId: input.app_id,
      userId: input.user_id,
      agentId: input.agent_id ?? null,
      metadata: input.metadata,
      startedAt: input.started_at ? new Date(input.started_at) : now,
    })
    .returning();
  if (!row) throw new Error("insert into sessions returned no row");
  return row;
}

export async function getSession(db: Database, id: string): Promise<SessionRow> {
  assertSessionId(id);
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
  if (!row) throw notFound("session", id);
  return row;
}

export async function listSessions(db: Database, query: ListSessionsQuery): Promise<SessionRow[]> {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.appId, query.app_id), eq(sessions.userId, query.user_id)))
    .orderBy(desc(sessions.startedAt))
    .limit(query.limit);
}

/**
 * Ends a session. Ending twice is harmless and keeps the first end time; the flag tells the
 * caller whether this call ended it, so the pipeline is notified once.
 */
export async function endSession(db: Database, id: string, now: Date): Promise<{ session: SessionRow; endedNow: boolean }> {
  assertSessionId(id);
  const [ended] = await db
    .update(sessions)
    .set({ endedAt: now, updatedAt: now })
    .where(and(eq(sessions.id, id), isNull(sessions.endedAt)))
    .returning();
  if (ended) return { session: ended, endedNow: true };
  return { session: await getSession(db, id), endedNow: false };
}
