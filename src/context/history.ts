import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import type { SourceRef } from "../memory/provenance.js";
import type { CandidateSection } from "./pack.js";
import type { ContextRequest } from "./schemas.js";

type HistoryItems = CandidateSection["items"];
const MAX_HISTORY_EVENTS = 200;

/** A session's history for a window, or that the session is not the user's (or does not exist). */
export type SessionHistory = { owned: true; items: HistoryItems } | { owned: false };

interface HistoryRow {
  owned: boolean;
  events: { id: string; seq: number; role: string; content: string; data: Record<string, unknown> | null }[] | string;
  summaries: { id: string; content: string; sources: SourceRef[] }[] | string;
}

/**
 * The session's history as section items, newest first, compressed by strategy — in one
 * statement, which also says whether the session is the user's (its history is read only then):
 * - `none`: the newest turns, as many as the budget holds;
 * - `trim`: at most the last `max_turns` turns;
 * - `summarize`: the last `max_turns` turns verbatim, older ones as their fast-replay summaries;
 * - `sliding_window`: a window of about `max_turns` turns whose start moves only every
 *   `max_turns − overlap` turns, so consecutive windows share at least `overlap` turns and the
 *   prompt prefix stays stable (cache-friendly) between moves.
 *
 * @example
 * const history = await sessionHistory(db, { appId: "default", userId: "ana" }, sessionId, { strategy: "trim", max_turns: 20, overlap: 2 });
 */
export async function sessionHistory(
  db: Database,
  scope: { appId: string; userId: string },
  sessionId: string,
  options: ContextRequest["history"],
): Promise<SessionHistory> {
  const limit =
    options.strategy === "none" ? MAX_HISTORY_EVENTS : options.strategy === "sliding_window" ? 2 * options.max_turns : options.max_turns;
  const [row] = await queryRows<HistoryRow>(
    db,
    sql`WITH owned AS (
          SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ${sessionId}::uuid AND app_id = ${scope.appId} AND user_id = ${scope.userId}) AS owned
        ),
        events AS MATERIALIZED (
          SELECT e.id, e.seq, e.role, e.content, e.data FROM session_events e
           WHERE e.session_id = ${sessionId}::uuid AND (SELECT owned FROM owned)
           ORDER BY e.seq DESC LIMIT ${limit}
        ),
        -- The current summaries of what came before the oldest turn read, newest first (summarize only).
        summaries AS (
          SELECT s.id, s.content, (s.metadata ->> 'from_seq')::int AS from_seq, o.oldest FROM memories s
            CROSS JOIN (SELECT min(seq) AS oldest FROM events) o
           WHERE ${options.strategy === "summarize"} AND o.oldest > 1
             AND s.session_id = ${sessionId}::uuid AND s.subtype = 'summary' AND s.expired_at IS NULL
             AND (s.metadata ->> 'from_seq')::int < o.oldest AND (s.metadata ->> 'from_seq')::int >= 1
        )
        SELECT (SELECT owned FROM owned) AS owned,
               (SELECT coalesce(json_agg(e ORDER BY e.seq DESC), '[]'::json) FROM events e) AS events,
               (SELECT coalesce(json_agg(json_build_object('id', s.id, 'content', s.content, 'sources', (
                         SELECT coalesce(json_agg(json_build_object('session_id', ms.session_id, 'event_id', ms.event_id, 'seq', ms.seq) ORDER BY ms.seq), '[]'::json)
                           FROM memory_sources ms WHERE ms.memory_id = s.id AND ms.seq < s.oldest)) ORDER BY s.from_seq DESC), '[]'::json)
                  FROM summaries s) AS summaries`,
  );
  if (!row?.owned) return { owned: false };
  const rows = json(row.events);
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
  const summaries = json(row.summaries).map((summary) => ({
    text: `(earlier) ${summary.content}`,
    memory_id: summary.id,
    sources: summary.sources,
  }));
  return { owned: true, items: [...items, ...summaries] };
}

/** A JSON column as the driver hands it over: parsed (most drivers), or text. */
const json = <T>(value: T[] | string): T[] => (typeof value === "string" ? (JSON.parse(value) as T[]) : value);
