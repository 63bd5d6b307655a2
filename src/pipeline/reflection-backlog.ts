import { and, asc, eq, gt, sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { sessionEvents, sessions } from "../db/schema/index.js";

export interface ReflectionChunk {
  /** `endedAt`: when the session ended (ISO), null while it is open. */
  session: { id: string; appId: string; userId: string; endedAt: string | null };
  fromSeq: number;
  toSeq: number;
  /** `speaker`: the participant's name when the event gives one (`data.speaker`). */
  events: { id: string; seq: number; role: string; content: string; occurredAt: string; speaker?: string | null }[];
  /** Events past `toSeq` were in the log when the chunk was loaded: another chunk follows. */
  more: boolean;
}

/** The next events past the reflection watermark (`reflected_seq`), at most `maxEvents`. */
export async function loadReflectionChunk(db: Database, sessionId: string, maxEvents: number): Promise<ReflectionChunk | null> {
  const [session] = await db
    .select({
      id: sessions.id,
      appId: sessions.appId,
      userId: sessions.userId,
      reflectedSeq: sessions.reflectedSeq,
      lastSeq: sessions.lastSeq,
      endedAt: sessions.endedAt,
    })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  if (!session || session.lastSeq <= session.reflectedSeq) return null;
  const rows = await db
    .select({
      id: sessionEvents.id,
      seq: sessionEvents.seq,
      role: sessionEvents.role,
      content: sessionEvents.content,
      occurredAt: sessionEvents.occurredAt,
      speaker: sql<string | null>`${sessionEvents.data} ->> 'speaker'`,
    })
    .from(sessionEvents)
    .where(and(eq(sessionEvents.sessionId, sessionId), gt(sessionEvents.seq, session.reflectedSeq)))
    .orderBy(asc(sessionEvents.seq))
    .limit(maxEvents);
  const last = rows[rows.length - 1];
  if (!last) return null;
  return {
    session: { id: session.id, appId: session.appId, userId: session.userId, endedAt: session.endedAt?.toISOString() ?? null },
    fromSeq: session.reflectedSeq,
    toSeq: last.seq,
    events: rows.map((row) => ({ ...row, occurredAt: row.occurredAt.toISOString() })),
    more: last.seq < session.lastSeq,
  };
}

/**
 * Records that deep reflection is wanted up to the sessions' current last event — one session,
 * or every session of a user with unreflected events — before the request is sent, so a lost
 * request is still found by the sweep. Returns the sessions marked.
 */
export async function requestReflection(
  db: Pick<Database, "update">,
  target: { sessionId: string } | { appId: string; userId: string; sessionId?: string },
): Promise<{ id: string; appId: string; userId: string; lastSeq: number }[]> {
  const where =
    "appId" in target
      ? and(
          eq(sessions.appId, target.appId),
          eq(sessions.userId, target.userId),
          target.sessionId ? eq(sessions.id, target.sessionId) : gt(sessions.lastSeq, sessions.reflectedSeq),
        )
      : eq(sessions.id, target.sessionId);
  return db
    .update(sessions)
    .set({ reflectionRequestedSeq: sql`greatest(${sessions.reflectionRequestedSeq}, ${sessions.lastSeq})`, updatedAt: sql`now()` })
    .where(where)
    .returning({ id: sessions.id, appId: sessions.appId, userId: sessions.userId, lastSeq: sessions.lastSeq });
}

/** Importance of the events not reflected yet; reflection starts when it crosses the threshold. */
export async function unreflectedImportance(db: Database, sessionId: string): Promise<number> {
  const [row] = await queryRows<{ total: number }>(
    db,
    sql`SELECT coalesce(sum(e.importance), 0)::float8 AS total FROM session_events e JOIN sessions s ON s.id = e.session_id
         WHERE e.session_id = ${sessionId} AND e.seq > s.reflected_seq`,
  );
  return Number(row?.total ?? 0);
}
