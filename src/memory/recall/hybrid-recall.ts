import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import type { MemoryType } from "../../db/schema/index.js";
import { toVectorLiteral } from "../../db/vector.js";
import type { SourceRef } from "../provenance.js";
import { type CorpusStatistics, type CorpusStatisticsCache, corpusStatistics } from "./corpus-statistics.js";
import { type Superseded, supersededSql, toSuperseded } from "./superseded.js";

/** Reciprocal-rank-fusion constant (seed 004 §4.6, MISSION S2). */
export const RRF_K = 60;
/** BM25 parameters, the usual defaults; term frequency is taken as 1 (memories are short). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Binary-quantised candidates per vector result kept, and at least this many. */
const BQ_OVERSAMPLING = 4;
const BQ_MIN_CANDIDATES = 400;

export type { SourceRef } from "../provenance.js";

export interface RecalledMemory {
  id: string;
  type: MemoryType;
  subtype: string | null;
  sessionId: string | null;
  /** For turn episodes: the event's seq in its session. */
  seq: number | null;
  content: string;
  importance: number;
  retention: number;
  accessCount: number;
  validAt: Date;
  createdAt: Date;
  /** Recall's score: the RRF score plus the neighbour boost. */
  score: number;
  /** RRF score over the vector and full-text rankings. */
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
  sources: SourceRef[];
  /** For an episode: the newer statement that replaced what it says, when one did. */
  superseded: Superseded | null;
}

export interface RecallFilters {
  /** The current time (the runtime's clock); what is valid is judged at `asOf` when given, else at `now`. */
  now: Date;
  types?: MemoryType[];
  /** The world as it was at this time instead of now (M2). */
  asOf?: Date;
  /** Only memories whose `valid_at` falls in this window (S3). */
  window?: { from?: Date; to?: Date };
}

export interface RecallQuery extends RecallFilters {
  appId: string;
  userId: string;
  text: string;
  /**
   * Query vector and the model that made it; only vectors of that model are compared. With
   * `annDimensions` (the model has a valid HNSW index, real Postgres), neighbours come from it.
   */
  vector?: { values: number[]; model: string; annDimensions?: number };
  limit: number;
  /** Candidates taken from each ranking before fusion. */
  candidates?: number;
}

/** How a service recalls, the same for every query it answers. */
export interface RecallSettings {
  /** Least share of a query's BM25 weight a full-text candidate matches (RECALL_MIN_TEXT_COVERAGE); default 0. */
  minTextCoverage?: number;
  /** Share of the better fused score of a turn's neighbours (seq ± 1) it gains (context windows: CONTEXT_NEIGHBOUR_WEIGHT); default 0. */
  neighbourWeight?: number;
  /** BM25's statistics of large corpora, kept for minutes instead of counted per query. */
  statistics?: CorpusStatisticsCache;
}

/** The memories a query may see: the user's, valid now (or at `asOf`), not dissolved, filtered. */
export function visibleMemories(scope: { appId: string; userId: string }, filters: RecallFilters): SQL {
  const conditions: SQL[] = [
    sql`m.app_id = ${scope.appId}`,
    sql`m.user_id = ${scope.userId}`,
    sql`(m.trait_stage IS NULL OR m.trait_stage <> 'dissolved')`,
  ];
  if (filters.asOf) {
    const at = filters.asOf.toISOString();
    conditions.push(sql`m.valid_at <= ${at}::timestamptz AND (m.invalid_at IS NULL OR m.invalid_at > ${at}::timestamptz)`);
    conditions.push(sql`(m.expired_at IS NULL OR m.superseded_by IS NOT NULL)`);
  } else {
    const now = filters.now.toISOString();
    conditions.push(
      sql`m.expired_at IS NULL AND (m.invalid_at IS NULL OR m.invalid_at > ${now}::timestamptz) AND m.valid_at <= ${now}::timestamptz`,
    );
  }
  if (filters.types && filters.types.length > 0) conditions.push(sql`m.type IN ${filters.types}`);
  if (filters.window?.from) conditions.push(sql`m.valid_at >= ${filters.window.from.toISOString()}::timestamptz`);
  if (filters.window?.to) conditions.push(sql`m.valid_at < ${filters.window.to.toISOString()}::timestamptz`);
  return sql.join(conditions, sql` AND `);
}

/**
 * Hybrid recall in one round trip (S2): nearest neighbours by cosine distance over `halfvec`
 * (rows without an embedding are skipped there) and a BM25-weighted full-text ranking (which finds
 * them), fused with RRF. Returns the fused score with the similarity and lexical coverage that
 * relevance gating and final scoring use.
 */
export async function recallMemories(db: Database, query: RecallQuery, settings: RecallSettings = {}): Promise<RecalledMemory[]> {
  const pool = query.candidates ?? Math.max(query.limit * 3, 20);
  const visible = visibleMemories(query, query);
  const vector = query.vector ? toVectorLiteral(query.vector.values) : null;
  const annDimensions = query.vector?.annDimensions;
  const vectorArm =
    query.vector && vector
      ? annDimensions
        ? // The HNSW index of this model (real Postgres): an iterative scan keeps going until it has
          // found enough of this user's visible memories; relaxed order is re-sorted exactly here.
          sql`SELECT id, session_id, turn_seq, 'vector' AS arm, row_number() OVER (ORDER BY distance) AS rank, 1 - distance AS similarity, 0::float8 AS coverage FROM (
              SELECT m.id, m.session_id, ${TURN_SEQ} AS turn_seq, m.embedding::halfvec(${sql.raw(String(annDimensions))}) <=> ${vector}::halfvec(${sql.raw(String(annDimensions))}) AS distance
                FROM memories m
               WHERE ${visible} AND m.embedding_model = ${query.vector.model}
               ORDER BY m.embedding::halfvec(${sql.raw(String(annDimensions))}) <=> ${vector}::halfvec(${sql.raw(String(annDimensions))})
               LIMIT ${pool}
            ) nearest`
        : // Candidates by Hamming distance over binary-quantised vectors (cheap), re-ranked by exact
          // cosine; with fewer rows than the oversampling this is an exact search.
          sql`SELECT id, session_id, turn_seq, 'vector' AS arm, row_number() OVER (ORDER BY distance) AS rank, 1 - distance AS similarity, 0::float8 AS coverage FROM (
              SELECT c.id, c.session_id, c.turn_seq, c.embedding <=> ${vector}::halfvec AS distance FROM (
                SELECT m.id, m.session_id, ${TURN_SEQ} AS turn_seq, m.embedding
                  FROM memories m
                 WHERE ${visible} AND m.embedding_bits IS NOT NULL AND m.embedding_model = ${query.vector.model}
                 ORDER BY m.embedding_bits <~> binary_quantize(${vector}::halfvec)::varbit
                 LIMIT ${Math.max(pool * BQ_OVERSAMPLING, BQ_MIN_CANDIDATES)}
              ) c
              ORDER BY distance
              LIMIT ${pool}
            ) nearest`
      : sql`SELECT NULL::uuid AS id, NULL::uuid AS session_id, NULL::int AS turn_seq, 'vector' AS arm, 0::bigint AS rank, 0::float8 AS similarity, 0::float8 AS coverage WHERE false`;
  const statement = (corpus: CorpusStatistics) => sql`WITH weights AS (
          SELECT w.lexeme, quote_literal(w.lexeme)::tsquery AS tsq, w.idf
            FROM jsonb_to_recordset(${JSON.stringify(bm25Weights(corpus))}::jsonb) AS w(lexeme text, idf float8)
        ),
        corpus AS (SELECT ${corpus.avgLength}::float8 AS avg_len),
        total AS (SELECT coalesce(sum(idf), 0) AS idf FROM weights),
        vec AS (${vectorArm}),
        fts AS (
          SELECT id, session_id, turn_seq, 'text' AS arm, row_number() OVER (ORDER BY score DESC) AS rank, 0::float8 AS similarity, coverage FROM (
            SELECT m.id, m.session_id, ${TURN_SEQ} AS turn_seq,
                   sum(w.idf * ${sql.raw(String(BM25_K1 + 1))} / (1 + ${sql.raw(String(BM25_K1))} * (1 - ${sql.raw(String(BM25_B))} + ${sql.raw(String(BM25_B))} * length(m.content_tsv) / c.avg_len))) AS score,
                   (sum(w.idf) / nullif(max(t.idf), 0))::float8 AS coverage
              FROM memories m JOIN weights w ON m.content_tsv @@ w.tsq, corpus c, total t
             WHERE ${visible}
             GROUP BY m.id
             HAVING sum(w.idf) >= ${settings.minTextCoverage ?? 0} * max(t.idf)
             ORDER BY score DESC
             LIMIT ${pool}
          ) scored
        ),
        fused AS (
          SELECT id, session_id, turn_seq, sum(1.0 / (${RRF_K} + rank)) AS rrf, max(similarity) AS similarity, max(coverage) AS coverage,
                 min(rank) FILTER (WHERE arm = 'vector') AS vector_rank, min(rank) FILTER (WHERE arm = 'text') AS text_rank
            FROM (SELECT * FROM vec UNION ALL SELECT * FROM fts) ranked GROUP BY id, session_id, turn_seq
        ),
        beside AS (${besideSql(settings.neighbourWeight ?? 0)})
        SELECT r.*, ${supersededSql(query.asOf ?? query.now)} AS superseded FROM (
          SELECT ${RECALLED_COLUMNS}, (f.rrf + f.boost)::float8 AS score, f.rrf::float8 AS fused, f.boost::float8 AS neighbour_boost,
                 f.similarity::float8 AS similarity, f.coverage::float8 AS coverage,
                 f.vector_rank::int AS vector_rank, f.text_rank::int AS text_rank
            FROM beside f JOIN memories m ON m.id = f.id
           ORDER BY f.rrf + f.boost DESC, m.created_at DESC
           LIMIT ${query.limit}
        ) r
        ORDER BY r.score DESC, r.created_at DESC`;
  // Settings are per transaction, so they never leak into a pooled connection's next user.
  const rows = await db.transaction(async (tx) => {
    // The planner's cost of the text arm (it cannot know how few rows the weights match) passes
    // jit_above_cost at scale, and compiling the statement then took 70 of its 107 ms on a real
    // Postgres with 100K memories; JIT pays off for analytics, never for a 10 ms lookup.
    // One round trip for the settings (set_config's `true`: for this transaction only).
    await tx.execute(
      annDimensions
        ? sql`SELECT set_config('jit', 'off', true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
                     set_config('hnsw.ef_search', ${String(Math.min(1000, Math.max(64, pool * 2)))}, true)`
        : sql`SELECT set_config('jit', 'off', true)`,
    );
    // BM25's statistics: from the cache (large corpora), else counted in a statement of their own.
    const statisticsKey =
      query.asOf || query.window ? undefined : `${query.appId}\u0000${query.userId}\u0000${query.types?.join(",") ?? ""}`;
    const { statistics } = settings;
    const corpus = await corpusStatistics(tx, visible, query.text, statisticsKey ? statistics?.lookup(statisticsKey) : undefined);
    if (statisticsKey) statistics?.remember(statisticsKey, corpus);
    return queryRows<RecalledRow>(tx, statement(corpus));
  });
  return rows.map(toRecalled);
}

/**
 * BM25 weights of the query's words. Postgres ranks (ts_rank) have no inverse document frequency,
 * so a question's common words would outweigh its rare, telling ones. A word in more than 80% of
 * the memories tells almost nothing (idf < 0.25) and would make the ranking join touch most rows:
 * it is left out, as is a word no memory has.
 */
function bm25Weights(corpus: CorpusStatistics): { lexeme: string; idf: number }[] {
  return corpus.terms
    .filter((term) => term.df > 0 && term.df <= corpus.n * 0.8)
    .map((term) => ({ lexeme: term.lexeme, idf: Math.log(1 + (corpus.n - term.df + 0.5) / (term.df + 0.5)) }));
}

/**
 * The fused rows with each one's neighbour boost. A turn beside a well-ranked turn of its session
 * shares part of that turn's score: evidence runs over consecutive turns (a question, its answer,
 * the details after), and the words of the question often sit in only one of them. Without a
 * weight (search) no window is computed.
 */
function besideSql(weight: number): SQL {
  if (weight === 0) return sql`SELECT f.*, 0::float8 AS boost FROM fused f`;
  return sql`SELECT f.*, greatest(
                 CASE WHEN lag(turn_seq) OVER turns = turn_seq - 1 THEN lag(rrf) OVER turns ELSE 0 END,
                 CASE WHEN lead(turn_seq) OVER turns = turn_seq + 1 THEN lead(rrf) OVER turns ELSE 0 END
               ) * ${weight} AS boost
          FROM fused f
        WINDOW turns AS (PARTITION BY session_id ORDER BY turn_seq)`;
}

/** A turn's place in its session (null for every other memory): what makes two turns neighbours. */
const TURN_SEQ = sql`CASE WHEN m.subtype = 'turn' THEN (m.metadata ->> 'seq')::int END`;

const RECALLED_COLUMNS = sql`m.id, m.app_id, m.user_id, m.type, m.subtype, m.session_id, (m.metadata ->> 'seq')::int AS seq, m.content, m.importance, m.retention,
       m.access_count, m.valid_at, m.created_at,
       (SELECT json_agg(json_build_object('session_id', s.session_id, 'event_id', s.event_id, 'seq', s.seq) ORDER BY s.seq)
          FROM memory_sources s WHERE s.memory_id = m.id) AS sources`;

type RecalledRow = {
  id: string;
  type: MemoryType;
  subtype: string | null;
  session_id: string | null;
  seq: number | null;
  content: string;
  importance: number;
  retention: number;
  access_count: number;
  valid_at: string | Date;
  created_at: string | Date;
  score: number;
  fused?: number | null;
  neighbour_boost?: number | null;
  similarity: number;
  coverage: number;
  vector_rank?: number | null;
  text_rank?: number | null;
  sources: SourceRef[] | null;
  superseded?: unknown;
};

function toRecalled(row: RecalledRow): RecalledMemory {
  return {
    id: row.id,
    type: row.type,
    subtype: row.subtype,
    sessionId: row.session_id,
    seq: row.seq === null ? null : Number(row.seq),
    content: row.content,
    importance: Number(row.importance),
    retention: Number(row.retention),
    accessCount: Number(row.access_count),
    validAt: new Date(row.valid_at),
    createdAt: new Date(row.created_at),
    score: Number(row.score),
    fused: Number(row.fused ?? row.score),
    neighbourBoost: Number(row.neighbour_boost ?? 0),
    similarity: Number(row.similarity ?? 0),
    coverage: Math.min(1, Number(row.coverage ?? 0)),
    vectorRank: row.vector_rank == null ? null : Number(row.vector_rank),
    textRank: row.text_rank == null ? null : Number(row.text_rank),
    sources: row.sources ?? [],
    superseded: toSuperseded(row.superseded),
  };
}

/**
 * The turns right after the given turns in their sessions: an answer usually follows the
 * question it answers, so a hit's next turn is often part of the same evidence.
 */
export async function followingTurns(
  db: Database,
  scope: { appId: string; userId: string },
  anchors: { sessionId: string; seq: number }[],
  now: Date,
): Promise<RecalledMemory[]> {
  if (anchors.length === 0) return [];
  const pairs = JSON.stringify(anchors.map((anchor) => ({ session_id: anchor.sessionId, seq: anchor.seq + 1 })));
  const rows = await queryRows<RecalledRow>(
    db,
    sql`SELECT r.*, ${supersededSql(now)} AS superseded FROM (
          SELECT ${RECALLED_COLUMNS}, 0::float8 AS score, 0::float8 AS similarity, 0::float8 AS coverage,
                 NULL::int AS vector_rank, NULL::int AS text_rank
            FROM jsonb_to_recordset(${pairs}::jsonb) AS p(session_id uuid, seq int)
            JOIN memories m ON m.session_id = p.session_id AND (m.metadata ->> 'seq')::int = p.seq
           WHERE ${visibleMemories(scope, { now })} AND m.subtype = 'turn'
        ) r`,
  );
  return rows.map(toRecalled);
}

/** Current memories by id, in the shape recall returns (to bring in what replaced a stale hit). */
export async function recallByIds(
  db: Database,
  scope: { appId: string; userId: string },
  ids: string[],
  now: Date,
): Promise<RecalledMemory[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<RecalledRow>(
    db,
    sql`SELECT r.*, NULL::json AS superseded FROM (
          SELECT ${RECALLED_COLUMNS}, 0::float8 AS score, 0::float8 AS similarity, 0::float8 AS coverage,
                 NULL::int AS vector_rank, NULL::int AS text_rank
            FROM memories m WHERE m.id IN ${ids} AND ${visibleMemories(scope, { now })}
        ) r`,
  );
  return rows.map(toRecalled);
}
