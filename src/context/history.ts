import { and, asc, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { memories, memorySources, sessionEvents } from "../db/schema/index.js";
import { current } from "../memory/visibility.js";
import type { CandidateSection } from "./pack.js";
import type { ContextRequest } from "./schemas.js";

type HistoryItems = CandidateSection["items"];
const MAX_HISTORY_EVENTS = 200;

/**
 * The session's history as section items, newest first, compressed by strategy:
 * - `none`: the newest turns, as many as the budget holds;
 * - `trim`: at most the last `max_turns` turns;
 * - `summarize`: the last `max_turns` turns verbatim, older ones as their fast-replay summaries;
 * - `sliding_window`: a window of about `max_turns` turns whose start moves only every
 *   `max_turns − overlap` turns, so consecutive windows share at least `overlap` turns and the
 *   prompt prefix stays stable (cache-friendly) between moves.
 */
export async function sessionHistory(db: Database, sessionId: string, options: ContextRequest["history"]): Promise<HistoryItems> {
  const limit =
    options.strategy === "none" ? MAX_HISTORY_EVENTS : options.strategy === "sliding_window" ? 2 * options.max_turns : options.max_turns;
  const rows = await db
    .select({
      id: sessionEvents.id,
      seq: sessionEvents.seq,
      role: sessionEvents.role,
      content: sessionEvents.content,
      data: sessionEvents.data,
    })
    .from(sessionEvents)
    .where(eq(sessionEvents.sessionId, sessionId))
    .orderBy(desc(sessionEvents.seq))
    .limit(limit);
  let turns = rows;
  if (options.strategy === "sliding_window" && rows[0]) {
    const lastSeq = rows[0].seq;
    const step = options.max_turns - options.overlap;
    const windowStart = Math.max(1, lastSeq - options.max_turns + 1);
    const alignedStart = 1 + Math.floor((windowStart - 1) / step) * step;
    turns = rows.filter((row) => row.seq >= alignedStart);
  }
  const items: HistoryItems = turns
    .filter((row) => row.content.trim() !== "")
    .map((row) => {
      const speaker = typeof row.data?.["speaker"] === "string" ? (row.data["speaker"] as string) : row.role;
      return { text: `${speaker}: ${row.content}`, sources: [{ session_id: sessionId, event_id: row.id, seq: row.seq }] };
    });
  const oldest = turns[turns.length - 1];
  if (options.strategy !== "summarize" || !oldest || oldest.seq <= 1) return items;
  return [...items, ...(await earlierSummaries(db, sessionId, oldest.seq))];
}

/** The session's current summaries of what came before `beforeSeq`, newest first. */
async function earlierSummaries(db: Database, sessionId: string, beforeSeq: number): Promise<HistoryItems> {
  const summaries = await db
    .select({ id: memories.id, content: memories.content })
    .from(memories)
    .where(
      and(
        eq(memories.sessionId, sessionId),
        eq(memories.subtype, "summary"),
        current(memories),
        lt(sql`(${memories.metadata} ->> 'from_seq')::int`, beforeSeq),
        gte(sql`(${memories.metadata} ->> 'from_seq')::int`, 1),
      ),
    )
    .orderBy(desc(sql`(${memories.metadata} ->> 'from_seq')::int`));
  if (summaries.length === 0) return [];
  const sources = await db
    .select({
      memoryId: memorySources.memoryId,
      session_id: memorySources.sessionId,
      event_id: memorySources.eventId,
      seq: memorySources.seq,
    })
    .from(memorySources)
    .where(
      and(
        inArray(
          memorySources.memoryId,
          summaries.map((summary) => summary.id),
        ),
        lt(memorySources.seq, beforeSeq),
      ),
    )
    .orderBy(asc(memorySources.seq));
  const items: HistoryItems = summaries.map((summary) => ({
    text: `(earlier) ${summary.content}`,
    memory_id: summary.id,
    sources: sources.filter((source) => source.memoryId === summary.id).map(({ memoryId: _memoryId, ...source }) => source),
  }));
  return items;
}
