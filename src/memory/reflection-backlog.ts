import { and, asc, eq, gt, sql } from "drizzle-orm";
import { type Database, type Executor, queryRows } from "../db/database.js";
import { sessionEvents, sessions } from "../db/schema/index.js";

export interface ReflectionChunk {
  session: { id: string; appId: string; userId: string };
  fromSeq: number;
  toSeq: number;
  events: { id: string; seq: number; role: string; content: string; occurredAt: string }[];
}

/** The next events past the reflection watermark (`reflected_seq`), at most `maxEvents`. */
export async function loadReflectionChunk(db: Database, sessionId: string, maxEvents: number): Promise<ReflectionChunk | null> {
  const [session] = await db
    .select({ id: sessions.id, appId: sessions.appId, userId: sessions.userId, reflectedSeq: sessions.reflectedSeq, lastSeq: sessions.lastSeq })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  if (!session || session.lastSeq <= session.reflectedSeq) return null;
  const rows = await db
    .select({ id: sessionEvents.id, seq: sessionEvents.seq, role: sessionEvents.role, content: sessionEvents.content, occurredAt: sessionEvents.occurredAt })
    .from(sessionEvents)
    .where(and(eq(sessionEvents.sessionId, sessionId), gt(sessionEvents.seq, session.reflectedSeq)))
    .orderBy(asc(sessionEvents.seq))
    .limit(maxEvents);
  const last = rows[rows.length - 1];
  if (!last) return null;
  return {
    session: { id: session.id, appId: session.appId, userId: session.userId },
    fromSeq: session.reflectedSeq,
    toSeq: last.seq,
    events: rows.map((row) => ({ ...row, occurredAt: row.occurredAt.toISOString() })),
  };
}

/** Moves the reflection watermark only from the value the batch was computed after (C6). */
export async function advanceReflectedSeq(tx: Executor, sessionId: string, fromSeq: number, toSeq: number): Promise<boolean> {
  const moved = await tx
    .update(sessions)
    .set({ reflectedSeq: toSeq, updatedAt: sql`now()` })
    .where(and(eq(sessions.id, sessionId), eq(sessions.reflectedSeq, fromSeq)))
    .returning({ id: sessions.id });
  return moved.length > 0;
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
