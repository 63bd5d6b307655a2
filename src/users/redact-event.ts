import { sql } from "drizzle-orm";
import { z } from "zod";
import { retryOnConflict } from "../db/connection-errors.js";
import { type Database, deletedCount, type Queryable, queryRows } from "../db/database.js";
import { notFound } from "../errors.js";
import { redactGraph } from "../memory/graph/graph-redaction.js";
import { lockUser } from "../memory/user-lock.js";
import { m } from "../memory/visibility.js";
import { writeHistory } from "../memory/write/memory-writes.js";
import { replayChunkStart } from "../pipeline/replay-backlog.js";

export const RedactEventSchema = z.strictObject({
  /** Why, kept with the tombstone (never the redacted words). */
  reason: z.string().trim().min(1).max(500).optional(),
});
export type RedactEvent = z.infer<typeof RedactEventSchema>;

/** The redacted words are gone; the event keeps its seq, role, type and time, so the log stays gapless. */
export const TOMBSTONE = "";

export interface RedactionReport {
  event_id: string;
  seq: number;
  /** False when the event was already redacted (the call is idempotent). */
  redacted_now: boolean;
  /** Turn episodes and rolling summaries deleted; fast replay writes the summaries again without the event. */
  episodes_deleted: number;
  /** Facts, insights and traits that came only from this event: retracted with a REDACT history entry. */
  memories_retracted: number;
  /** Memories also stated elsewhere: they lose this event as a source and stay. */
  sources_removed: number;
  /** Older versions that the retracted memories had replaced, current again. */
  versions_restored: number;
  /** Finished or pending pipeline runs of the session deleted with their memoized steps (which quote the event). */
  pipeline_runs_deleted: number;
  /** Replay restarts after this seq (the start of the chunk that held the event). */
  replay_from_seq: number;
  /** Relations of the entity graph stated only in redacted events: removed. */
  relations_removed: number;
  /** Entities no remaining event names: removed. */
  entities_removed: number;
  /** Entities still named elsewhere that lost the names only this event gave them. */
  entities_renamed: number;
}

interface EventRow {
  id: string;
  session_id: string;
  app_id: string;
  user_id: string;
  seq: number;
  data: Record<string, unknown> | null;
  replayed_seq: number;
}

/** The event to redact, in the session and user that must own it. */
export interface RedactionTarget {
  sessionId: string;
  seq: number;
  appId: string;
  userId: string;
}

type RedactionInput = RedactEvent & { replayMaxEvents: number; now: Date; actor: string };

/**
 * Cascading retraction (issue 14.1): replaces one event's words with a tombstone and removes them
 * from everything derived from it, in one transaction under the user's lock (the lock every writer
 * of derived memory takes, so no replay or reflection commits in between):
 * - turn episodes and rolling summaries from the event's chunk on are deleted with their history,
 *   and the replay watermark is moved back to the chunk start, so fast replay summarises the chunk
 *   again — without the words — and the chunks after it as they were;
 * - facts, insights and traits whose only sources are redacted events are retracted: their key (made
 *   from the words), content, value, vector and history snapshots are scrubbed and a REDACT entry says why; a version they had
 *   superseded becomes current again, as if the statement had never been made; memories also
 *   stated elsewhere just lose the source;
 * - trait evidence from the event is deleted;
 * - the entity graph loses the event's mentions, the relations stated only there and the entities
 *   (or names) only it gave (`redactGraph`);
 * - the embedded executor's runs of the session (pending or finished) are deleted with their
 *   memoized steps, which quote the event.
 * Runs already in flight find the event redacted when they write (writeEpisode, applyCandidates) and
 * write nothing from it.
 */
export async function redactEvent(db: Database, target: RedactionTarget, input: RedactionInput): Promise<RedactionReport> {
  // Deletes and updates of many memory rows can deadlock with the access recorder's batched UPDATE;
  // Postgres aborts one side, and the whole redaction runs again.
  return retryOnConflict(() => redactInTransaction(db, target, input));
}

function redactInTransaction(db: Database, target: RedactionTarget, input: RedactionInput): Promise<RedactionReport> {
  return db.transaction(async (tx) => {
    await lockUser(tx, target.appId, target.userId);
    const [event] = await queryRows<EventRow>(
      tx,
      sql`SELECT e.id, e.session_id, s.app_id, s.user_id, e.seq, e.data, s.replayed_seq
            FROM session_events e JOIN sessions s ON s.id = e.session_id
           WHERE e.session_id = ${target.sessionId} AND e.seq = ${target.seq} AND s.app_id = ${target.appId} AND s.user_id = ${target.userId}
           FOR UPDATE OF e`,
    );
    if (!event) throw notFound("event", `${target.sessionId}/${target.seq}`);
    const alreadyRedacted = isTombstone(event.data);
    const chunkStart = replayChunkStart(event.seq, input.replayMaxEvents);
    const replayFrom = Math.min(Number(event.replayed_seq), chunkStart - 1);

    await tx.execute(
      sql`UPDATE session_events
             SET content = ${TOMBSTONE}, token_count = 0, importance = 0, request_hash = NULL,
                 data = jsonb_build_object('tombstone', jsonb_build_object('at', ${input.now.toISOString()}::text, 'reason', ${input.reason ?? null}::text))
           WHERE id = ${event.id}`,
    );
    const episodes = await deleteEpisodesFrom(tx, event.session_id, chunkStart);
    await tx.execute(sql`UPDATE sessions SET replayed_seq = ${replayFrom}, updated_at = now() WHERE id = ${event.session_id}`);
    const derived = await retractDerived(tx, event, input);
    await tx.execute(sql`DELETE FROM trait_evidence WHERE event_id = ${event.id}`);
    const graph = await redactGraph(
      { tx, appId: event.app_id, userId: event.user_id, actor: input.actor, now: input.now },
      event.id,
      event.seq,
    );
    const runs = await deletedCount(
      tx,
      sql`DELETE FROM executor_runs
           WHERE app_id = ${target.appId} AND user_id = ${target.userId} AND event -> 'data' ->> 'session_id' = ${event.session_id}`,
    );
    return {
      event_id: event.id,
      seq: event.seq,
      redacted_now: !alreadyRedacted,
      episodes_deleted: episodes,
      memories_retracted: derived.retracted,
      sources_removed: derived.sourcesRemoved,
      versions_restored: derived.restored,
      pipeline_runs_deleted: runs,
      replay_from_seq: replayFrom,
      ...graph,
    };
  });
}

/**
 * A redacted event's `data` is `{tombstone: {at, reason}}` — not `redacted`, which write-time
 * redaction uses for its counts on events that keep their (masked) words.
 */
function isTombstone(data: unknown): boolean {
  return typeof data === "object" && data !== null && "tombstone" in data;
}

/** Turn episodes of the chunk and after, and every version of the summaries of those chunks. */
async function deleteEpisodesFrom(tx: Queryable, sessionId: string, chunkStart: number): Promise<number> {
  const gone = await queryRows<{ id: string }>(
    tx,
    sql`DELETE FROM memories
         WHERE session_id = ${sessionId} AND type = 'episodic'
           AND ((subtype = 'turn' AND (metadata ->> 'seq')::int >= ${chunkStart})
             OR (subtype = 'summary' AND (metadata ->> 'from_seq')::int >= ${chunkStart}))
        RETURNING id`,
  );
  const ids = gone.map((row) => row.id);
  if (ids.length > 0) await tx.execute(sql`DELETE FROM memory_history WHERE memory_id IN ${ids}`);
  return ids.length;
}

async function retractDerived(
  tx: Queryable,
  event: EventRow,
  input: { now: Date; actor: string; reason?: string | undefined },
): Promise<{ retracted: number; sourcesRemoved: number; restored: number }> {
  // Every non-episodic memory citing the event, and whether it cites any event that is not redacted.
  const cited = await queryRows<{ id: string; other_sources: number }>(
    tx,
    sql`SELECT ${m.id},
               (SELECT count(*)::int FROM memory_sources o JOIN session_events oe ON oe.id = o.event_id
                 WHERE o.memory_id = ${m.id} AND o.event_id <> ${event.id} AND NOT (coalesce(oe.data, '{}'::jsonb) ? 'tombstone')) AS other_sources
          FROM memories m JOIN memory_sources s ON s.memory_id = ${m.id}
         WHERE s.event_id = ${event.id} AND ${m.type} <> 'episodic'`,
  );
  const stated = cited.filter((row) => Number(row.other_sources) > 0).map((row) => row.id);
  const retracted = cited.filter((row) => Number(row.other_sources) === 0).map((row) => row.id);
  if (stated.length > 0) await tx.execute(sql`DELETE FROM memory_sources WHERE event_id = ${event.id} AND memory_id IN ${stated}`);
  if (retracted.length === 0) return { retracted: 0, sourcesRemoved: stated.length, restored: 0 };

  const at = input.now.toISOString();
  // What the retracted memories had replaced holds again: the statement that replaced it never stood.
  const restored = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE memories SET invalid_at = NULL, expired_at = NULL, superseded_by = NULL, updated_at = ${at}::timestamptz
         WHERE superseded_by IN ${retracted} RETURNING id`,
  );
  await tx.execute(
    sql`UPDATE memories
           SET content = '[redacted]', key = NULL, value = NULL, embedding = NULL, embedding_model = NULL,
               invalid_at = coalesce(invalid_at, ${at}::timestamptz), expired_at = coalesce(expired_at, ${at}::timestamptz),
               superseded_by = NULL, updated_at = ${at}::timestamptz,
               metadata = jsonb_build_object('origin', coalesce(metadata ->> 'origin', 'log'), 'redacted', true)
         WHERE id IN ${retracted}`,
  );
  // History keeps that the memory existed and when, never what it said: its snapshots and reasons
  // are scrubbed (the entries of versions it replaced name only its id).
  await tx.execute(sql`UPDATE memory_history SET before = NULL, after = NULL, reason = NULL WHERE memory_id IN ${retracted}`);
  await tx.execute(sql`DELETE FROM memory_sources WHERE event_id = ${event.id} AND memory_id IN ${retracted}`);
  for (const id of retracted) {
    await writeHistory(tx, {
      memoryId: id,
      appId: event.app_id,
      userId: event.user_id,
      operation: "REDACT",
      actor: input.actor,
      reason: `source event ${event.seq} redacted${input.reason ? `: ${input.reason}` : ""}`,
      at: input.now,
    });
  }
  for (const { id } of restored) {
    await writeHistory(tx, {
      memoryId: id,
      appId: event.app_id,
      userId: event.user_id,
      operation: "UPDATE",
      actor: input.actor,
      reason: `current again: the statement that replaced it (event ${event.seq}) was redacted`,
      at: input.now,
    });
  }
  return { retracted: retracted.length, sourcesRemoved: stated.length, restored: restored.length };
}
