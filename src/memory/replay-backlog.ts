import { and, asc, eq, gt } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { sessionEvents, sessions } from "../db/schema/index.js";

export interface BacklogEvent {
  id: string;
  seq: number;
  role: string;
  content: string;
  speaker: string;
  occurredAt: string;
}

export interface ReplayChunk {
  session: { id: string; appId: string; userId: string };
  /** The watermark the chunk starts after. */
  fromSeq: number;
  toSeq: number;
  events: BacklogEvent[];
}

/**
 * The next events of a session that fast replay has not summarised yet (after `replayed_seq`),
 * at most `maxEvents`; null when the session is caught up or gone.
 */
export async function loadReplayChunk(db: Database, sessionId: string, maxEvents: number): Promise<ReplayChunk | null> {
  const [session] = await db
    .select({ id: sessions.id, appId: sessions.appId, userId: sessions.userId, replayedSeq: sessions.replayedSeq, lastSeq: sessions.lastSeq })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  if (!session || session.lastSeq <= session.replayedSeq) return null;
  const rows = await db
    .select({
      id: sessionEvents.id,
      seq: sessionEvents.seq,
      role: sessionEvents.role,
      content: sessionEvents.content,
      data: sessionEvents.data,
      occurredAt: sessionEvents.occurredAt,
    })
    .from(sessionEvents)
    .where(and(eq(sessionEvents.sessionId, sessionId), gt(sessionEvents.seq, session.replayedSeq)))
    .orderBy(asc(sessionEvents.seq))
    .limit(maxEvents);
  if (rows.length === 0) return null;
  const events = rows.map((row) => ({
    id: row.id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    // A named speaker (imported transcripts) reads better in a summary than a bare role.
    speaker: typeof row.data?.["speaker"] === "string" ? (row.data["speaker"] as string) : row.role,
    occurredAt: row.occurredAt.toISOString(),
  }));
  return {
    session: { id: session.id, appId: session.appId, userId: session.userId },
    fromSeq: session.replayedSeq,
    toSeq: (events[events.length - 1] as BacklogEvent).seq,
    events,
  };
}
