import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import type { PipelineStage } from "../db/schema/index.js";
import { needsEmbedding } from "../memory/write/embeddings.js";

/**
 * Everything the pipeline still owes the log, derived from the data itself (the log is the
 * outbox): events past `replayed_seq`, events of sessions due for reflection past `reflected_seq`,
 * memories without a vector of the current model. What a lost emit, a crash or an exhausted retry
 * left behind is found here by the sweep; what `settled` waits for is counted here.
 */

/** The seq deep reflection owes a session: all of an ended session, or as far as it was asked. */
export const REFLECTION_DUE_SEQ = sql`greatest(reflection_requested_seq, CASE WHEN ended_at IS NOT NULL THEN last_seq ELSE 0 END)`;

export interface PipelineBacklog {
  /** Committed events that fast replay has not summarised yet. */
  unreplayed_events: number;
  /** Events of ended sessions (or sessions whose reflection was asked for) not reflected yet. */
  unreflected_events: number;
  /** Current memories still waiting for a vector of the configured embedding model. */
  unembedded_memories: number;
}

export interface SessionBacklog {
  session_id: string;
  app_id: string;
  user_id: string;
  last_seq: number;
}

export interface UserScope {
  appId?: string;
  userId?: string;
}

function scoped(scope: UserScope, ...conditions: SQL[]): SQL {
  const all = [...conditions];
  if (scope.appId !== undefined) all.push(sql`app_id = ${scope.appId}`);
  if (scope.userId !== undefined) all.push(sql`user_id = ${scope.userId}`);
  return all.length > 0 ? sql.join(all, sql` AND `) : sql`TRUE`;
}

/** Not parked: a stage that failed too often waits for a retry instead of being re-sent. */
function notParked(stage: PipelineStage, subject: SQL): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM pipeline_failures f
                          WHERE f.app_id = s.app_id AND f.user_id = s.user_id AND f.stage = ${stage}
                            AND f.subject = ${subject} AND f.parked_at IS NOT NULL)`;
}

export async function readBacklog(db: Database, scope: UserScope, embeddingModel: string): Promise<PipelineBacklog> {
  const [row] = await queryRows<PipelineBacklog>(
    db,
    sql`SELECT
          (SELECT coalesce(sum(last_seq - replayed_seq), 0)::int FROM sessions WHERE ${scoped(scope)}) AS unreplayed_events,
          (SELECT coalesce(sum(greatest(${REFLECTION_DUE_SEQ} - reflected_seq, 0)), 0)::int FROM sessions WHERE ${scoped(scope)}) AS unreflected_events,
          (SELECT count(*)::int FROM memories WHERE ${scoped(scope, needsEmbedding(embeddingModel))}) AS unembedded_memories`,
  );
  return {
    unreplayed_events: Number(row?.unreplayed_events ?? 0),
    unreflected_events: Number(row?.unreflected_events ?? 0),
    unembedded_memories: Number(row?.unembedded_memories ?? 0),
  };
}

/**
 * Sessions with committed events that fast replay has not covered, quiet for `minAgeMs`: their
 * emit was lost or their run failed. Parked sessions are left out.
 */
export async function findUnreplayed(db: Database, minAgeMs: number, limit: number): Promise<SessionBacklog[]> {
  return queryRows<SessionBacklog>(
    db,
    sql`SELECT s.id AS session_id, s.app_id, s.user_id, s.last_seq FROM sessions s
         WHERE s.last_seq > s.replayed_seq AND s.last_event_at < now() - make_interval(secs => ${minAgeMs / 1000})
           AND ${notParked("replay", sql`s.id::text`)}
         ORDER BY s.last_event_at LIMIT ${limit}`,
  );
}

/** Sessions due for deep reflection (ended, or asked for) that it has not covered, quiet for `minAgeMs`. */
export async function findUnreflected(db: Database, minAgeMs: number, limit: number): Promise<SessionBacklog[]> {
  return queryRows<SessionBacklog>(
    db,
    sql`SELECT s.id AS session_id, s.app_id, s.user_id, s.last_seq FROM sessions s
         WHERE s.reflected_seq < ${REFLECTION_DUE_SEQ}
           AND greatest(s.last_event_at, s.ended_at, s.updated_at) < now() - make_interval(secs => ${minAgeMs / 1000})
           AND ${notParked("reflection", sql`s.id::text`)}
         ORDER BY s.last_event_at LIMIT ${limit}`,
  );
}

/**
 * Users with current memories needing a vector from `model` written at least `minAgeMs` ago (a
 * newer one is most likely waiting for the backfill its writer asked for), unless their
 * backfill is parked.
 */
export async function findUsersWithUnembedded(
  db: Database,
  model: string,
  minAgeMs: number,
  limit: number,
): Promise<{ app_id: string; user_id: string }[]> {
  return queryRows<{ app_id: string; user_id: string }>(
    db,
    sql`SELECT DISTINCT s.app_id, s.user_id FROM memories s
         WHERE ${needsEmbedding(model)} AND s.created_at < now() - make_interval(secs => ${minAgeMs / 1000})
           AND ${notParked("embedding", sql`''`)} LIMIT ${limit}`,
  );
}
