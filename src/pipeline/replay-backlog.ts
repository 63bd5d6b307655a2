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
  importance: number;
}

export interface ReplayChunk {
  /** `endedAt`: when the session ended (ISO), null while it is open. */
  session: { id: string; appId: string; userId: string; endedAt: string | null };
  /** The watermark when the chunk was loaded; the write only happens if it is still current. */
  fromSeq: number;
  /** First seq of the chunk: chunks are fixed ranges of `maxEvents` seqs. */
  chunkStart: number;
  toSeq: number;
  events: BacklogEvent[];
  /** Events past `toSeq` were in the log when the chunk was loaded: another chunk follows. */
  more: boolean;
}

/** First seq of the replay chunk that holds `seq` (chunks are fixed ranges: 1-40, 41-80, … for 40). */
export const replayChunkStart = (seq: number, maxEvents: number) => Math.floor((seq - 1) / maxEvents) * maxEvents + 1;

/**
 * The chunk of a session that holds the first event fast replay has not summarised (after
 * `replayed_seq`). Chunks are fixed seq ranges (1-40, 41-80, … for `maxEvents` = 40): a chunk
 * that already has an episode is loaded whole and its episode is rewritten with the new events
 * (a rolling summary), so the episodes depend only on the log, not on when replay ran.
 * Null when the session is caught up or gone.
 */
export async function loadReplayChunk(db: Database, sessionId: string, maxEvents: number): Promise<ReplayChunk | null> {
  const [session] = await db
    .select({
      id: sessions.id,
      appId: sessions.appId,
      userId: sessions.userId,
      replayedSeq: sessions.replayedSeq,
      lastSeq: sessions.lastSeq,
      endedAt: sessions.endedAt,
    })
    .from(sessions)
    .where(eq(sessions.id, sessionId));
  if (!session || session.lastSeq <= session.replayedSeq) return null;
  const chunkStart = replayChunkStart(session.replayedSeq + 1, maxEvents);
  const rows = await db
    .select({
      id: sessionEvents.id,
      seq: sessionEvents.seq,
      role: sessionEvents.role,
      content: sessionEvents.content,
      data: sessionEvents.data,
      occurredAt: sessionEvents.occurredAt,
      importance: sessionEvents.importance,
    })
    .from(sessionEvents)
    .where(and(eq(sessionEvents.sessionId, sessionId), gt(sessionEvents.seq, chunkStart - 1)))
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
    importance: row.importance,
  }));
  return {
    session: { id: session.id, appId: session.appId, userId: session.userId, endedAt: session.endedAt?.toISOString() ?? null },
    fromSeq: session.replayedSeq,
    chunkStart,
    toSeq: (events[events.length - 1] as BacklogEvent).seq,
    events,
    more: (events[events.length - 1] as BacklogEvent).seq < session.lastSeq,
  };
}
