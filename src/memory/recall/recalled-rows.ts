import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { queryRowsPrepared } from "../../db/pool-statements.js";
import type { MemoryType } from "../../db/schema/index.js";
import { currentRetention, type RetentionClock } from "../lifecycle/retention.js";
import type { SourceRef } from "../provenance.js";
import { m, visibleAt } from "../visibility.js";
import type { ChannelRank, FusedHit } from "./fusion.js";
import { type Superseded, supersededSql, toSuperseded } from "./superseded.js";

export interface RecalledMemory {
  id: string;
  type: MemoryType;
  subtype: string | null;
  sessionId: string | null;
  /** For turn episodes: the event's seq in its session. */
  seq: number | null;
  /** For turn episodes: who spoke (`user`, `assistant`…), when known. */
  role: string | null;
  content: string;
  importance: number;
  retention: number;
  accessCount: number;
  validAt: Date;
  createdAt: Date;
  /** When what it records was first said: its earliest source event (its `validAt` when it has none). */
  firstStatedAt: Date;
  /** When it was last said, first or again: its newest source event (a fact restated later is confirmed then). */
  lastConfirmedAt: Date;
  /** Recall's score: the RRF score plus the neighbour boost. */
  score: number;
  /** RRF score over the channels' rankings. */
  fused: number;
  /** What the memory gained from a well-ranked turn beside it (0 when none, or not a turn). */
  neighbourBoost: number;
  /** Cosine similarity to the query (0 when the memory was found by text only). */
  similarity: number;
  /** Share of the query's BM25 weight that the memory's words match (0-1). */
  coverage: number;
  /** Position in the vector ranking (1 = nearest), null when that ranking did not find it. */
  vectorRank: number | null;
  /** Position in the BM25 full-text ranking, null when that ranking did not find it. */
  textRank: number | null;
  /** Every channel that found it, with its place there (and how, for a channel that says). */
  channels: ChannelRank[];
  sources: SourceRef[];
  /** For an episode: the newer statement that replaced what it says, when one did. */
  superseded: Superseded | null;
}

/**
 * The fused hits' rows, in fusion's order, those no longer visible left out (a hit may have been
 * replaced or expired since it was ranked). Only the ids go to the database: the scores and the
 * order stay here. Each row comes back as one JSON value, which the embedded driver hands over
 * faster than many columns. `exact`: the query vector as a literal when the vector ranking's
 * similarities were estimates, so the exact ones are read with the rows.
 */
export async function readHits(
  db: Database,
  hits: readonly FusedHit[],
  visible: SQL,
  supersededAt: Date,
  exact: string | undefined,
  clock: RetentionClock,
): Promise<RecalledMemory[]> {
  if (hits.length === 0) return [];
  const rows = await queryRowsPrepared<{ row: RecalledRow }>(
    db,
    sql`SELECT row_to_json(w) AS row FROM (
          SELECT r.*, ${supersededSql(supersededAt)} AS superseded FROM (
            SELECT ${RECALLED_COLUMNS},
                   ${exact ? sql`(1 - (${m.embedding} <=> ${exact}::halfvec))::float8` : sql`NULL::float8`} AS exact_similarity
              FROM memories m
             WHERE ${m.id} = ANY(${`{${hits.map((hit) => hit.id).join(",")}}`}::uuid[]) AND ${visible}
          ) r
        ) w`,
  );
  const read = new Map(rows.map(({ row }) => [row.id, row]));
  return hits.flatMap((hit) => {
    const row = read.get(hit.id);
    if (!row) return [];
    const similarity = hit.vector_rank !== null && row.exact_similarity != null ? Number(row.exact_similarity) : hit.similarity;
    const { score, fused, neighbour_boost, coverage, vector_rank, text_rank, channels } = hit;
    return [toRecalled({ ...row, score, fused, neighbour_boost, similarity, coverage, vector_rank, text_rank, channels }, clock)];
  });
}

/**
 * The turns right after the given turns in their sessions: an answer usually follows the
 * question it answers, so a hit's next turn is often part of the same evidence.
 */
export async function followingTurns(
  db: Database,
  scope: { appId: string; userId: string },
  anchors: { sessionId: string; seq: number }[],
  clock: RetentionClock,
): Promise<RecalledMemory[]> {
  if (anchors.length === 0) return [];
  const { now } = clock;
  const pairs = JSON.stringify(anchors.map((anchor) => ({ session_id: anchor.sessionId, seq: anchor.seq + 1 })));
  const rows = await queryRows<RecalledRow>(
    db,
    sql`SELECT r.*, ${supersededSql(now)} AS superseded FROM (
          SELECT ${RECALLED_COLUMNS}, ${UNRANKED}
            FROM jsonb_to_recordset(${pairs}::jsonb) AS p(session_id uuid, seq int)
            JOIN memories m ON ${m.sessionId} = p.session_id AND (${m.metadata} ->> 'seq')::int = p.seq
           WHERE ${visibleAt(m, scope, { now })} AND ${m.subtype} = 'turn'
        ) r`,
  );
  return rows.map((row) => toRecalled(row, clock));
}

/**
 * The user's turns that recalled memories were derived from (a fact's or an insight's source
 * turns), by the memory derived: a turn is found by what was made of it as well as by its own
 * words ("User's dog is a beagle" finds the turn that said "our Biscuit howls at every van").
 */
export async function sourceTurns(
  db: Database,
  scope: { appId: string; userId: string },
  derived: readonly { id: string; sources: readonly SourceRef[] }[],
  clock: RetentionClock,
): Promise<Map<string, RecalledMemory[]>> {
  const pairs = derived.flatMap((memory) => memory.sources.map((source) => ({ derived_id: memory.id, event_id: source.event_id })));
  if (pairs.length === 0) return new Map();
  const { now } = clock;
  const rows = await queryRows<RecalledRow & { derived_id: string }>(
    db,
    sql`SELECT r.*, ${supersededSql(now)} AS superseded FROM (
          SELECT p.derived_id, ${RECALLED_COLUMNS}, ${UNRANKED}
            FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS p(derived_id uuid, event_id uuid)
            JOIN memory_sources s ON s.event_id = p.event_id
            JOIN memories m ON ${m.id} = s.memory_id
           WHERE ${visibleAt(m, scope, { now })} AND ${m.subtype} = 'turn'
        ) r`,
  );
  const found = new Map<string, RecalledMemory[]>();
  for (const row of rows) found.set(row.derived_id, [...(found.get(row.derived_id) ?? []), toRecalled(row, clock)]);
  return found;
}

/** Current memories by id, in the shape recall returns (to bring in what replaced a stale hit). */
export async function recallByIds(
  db: Database,
  scope: { appId: string; userId: string },
  ids: string[],
  clock: RetentionClock,
): Promise<RecalledMemory[]> {
  if (ids.length === 0) return [];
  const { now } = clock;
  const rows = await queryRows<RecalledRow>(
    db,
    sql`SELECT r.*, NULL::json AS superseded FROM (
          SELECT ${RECALLED_COLUMNS}, ${UNRANKED}
            FROM memories m WHERE ${m.id} IN ${ids} AND ${visibleAt(m, scope, { now })}
        ) r`,
  );
  return rows.map((row) => toRecalled(row, clock));
}

const RECALLED_COLUMNS = sql`${m.id}, ${m.appId}, ${m.userId}, ${m.type}, ${m.subtype}, ${m.sessionId}, (${m.metadata} ->> 'seq')::int AS seq,
       ${m.metadata} ->> 'role' AS role,
       ${m.content}, ${m.importance}, ${m.accessCount}, ${m.lastAccessedAt}, ${m.reinforcementCount}, ${m.validAt}, ${m.createdAt},
       (SELECT json_build_object(
                 'sources', json_agg(json_build_object('session_id', s.session_id, 'event_id', s.event_id, 'seq', s.seq) ORDER BY s.seq),
                 'first', min(e.occurred_at), 'last', max(e.occurred_at))
          FROM memory_sources s LEFT JOIN session_events e ON e.id = s.event_id
         WHERE s.memory_id = ${m.id}) AS provenance`;

/** The signals of a memory no channel ranked (a following turn, a replacement). */
const UNRANKED = sql`0::float8 AS score, 0::float8 AS similarity, 0::float8 AS coverage, NULL::int AS vector_rank, NULL::int AS text_rank`;

type RecalledRow = {
  id: string;
  type: MemoryType;
  subtype: string | null;
  session_id: string | null;
  seq: number | null;
  role: string | null;
  content: string;
  importance: number;
  access_count: number;
  last_accessed_at: string | Date;
  reinforcement_count: number;
  valid_at: string | Date;
  created_at: string | Date;
  score: number;
  fused?: number | null;
  neighbour_boost?: number | null;
  similarity: number;
  coverage: number;
  vector_rank?: number | null;
  text_rank?: number | null;
  channels?: ChannelRank[];
  provenance: { sources: SourceRef[] | null; first: string | null; last: string | null } | null;
  superseded?: unknown;
  exact_similarity?: number | null;
};

function toRecalled(row: RecalledRow, clock: RetentionClock): RecalledMemory {
  const accessCount = Number(row.access_count);
  const validAt = new Date(row.valid_at);
  return {
    id: row.id,
    type: row.type,
    subtype: row.subtype,
    sessionId: row.session_id,
    seq: row.seq === null ? null : Number(row.seq),
    role: row.role ?? turnRole(row),
    content: row.content,
    importance: Number(row.importance),
    retention: currentRetention(
      {
        type: row.type,
        subtype: row.subtype,
        accessCount,
        lastAccessedAt: new Date(row.last_accessed_at),
        reinforcementCount: Number(row.reinforcement_count),
      },
      clock,
    ),
    accessCount,
    validAt,
    createdAt: new Date(row.created_at),
    firstStatedAt: row.provenance?.first ? new Date(row.provenance.first) : validAt,
    lastConfirmedAt: row.provenance?.last ? new Date(row.provenance.last) : validAt,
    score: Number(row.score),
    fused: Number(row.fused ?? row.score),
    neighbourBoost: Number(row.neighbour_boost ?? 0),
    similarity: Number(row.similarity ?? 0),
    coverage: Math.min(1, Number(row.coverage ?? 0)),
    vectorRank: row.vector_rank == null ? null : Number(row.vector_rank),
    textRank: row.text_rank == null ? null : Number(row.text_rank),
    channels: row.channels ?? [],
    sources: row.provenance?.sources ?? [],
    superseded: toSuperseded(row.superseded),
  };
}

/** A turn written before turns recorded their role: an unnamed assistant's turn reads "assistant: …". */
function turnRole(row: Pick<RecalledRow, "subtype" | "content">): string | null {
  if (row.subtype !== "turn") return null;
  return row.content.startsWith("assistant: ") ? "assistant" : row.content.startsWith("user: ") ? "user" : null;
}
