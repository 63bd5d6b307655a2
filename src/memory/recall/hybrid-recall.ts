import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { queryRowsPrepared, queryRowsWithSettings, withSettings } from "../../db/pool-statements.js";
import type { MemoryType } from "../../db/schema/index.js";
import { toVectorLiteral } from "../../db/vector.js";
import { currentRetention, RETENTION_PRESETS, type RetentionClock } from "../lifecycle/retention.js";
import type { SourceRef } from "../provenance.js";
import { bm25Weights } from "./bm25.js";
import {
  type CorpusStatisticsCache,
  corpusStatistics,
  countVisible,
  DEFAULT_COUNT_LIMITS,
  WORD_INDEX_MIN_CORPUS,
} from "./corpus-statistics.js";
import { type FusedHit, fuseRankings, type RankedHit } from "./fusion.js";
import type { QueryVectorCache } from "./query-vector-cache.js";
import type { ResidentMemories } from "./resident/resident-memories.js";
import type { ResidentRow } from "./resident/resident-slots.js";
import { type Superseded, supersededSql, toSuperseded } from "./superseded.js";
import { queryLexemes, rankByWords, smallCorpusStatistics, wordsToCount } from "./text-ranking.js";

/**
 * `hnsw.ef_search` for a vector arm of `pool` results: the pool itself, at least 64 and
 * at most pgvector's 1,000. The iterative scan goes on past ef_search until the pool is full, so more
 * buys only the pool's tail: for a user with 100K memories and a context window's pool of 402,
 * 2× the pool took 18.3 ms (p50) and found 0.983 of the exact 402, 1× 8.1 ms and 0.970, and both
 * the whole exact top-10 but for 0.3%.
 */
const annEfSearch = (pool: number) => Math.min(1000, Math.max(64, pool));

/** Binary-quantised candidates per vector result kept, and at least this many. */
const BQ_OVERSAMPLING = 4;
const BQ_MIN_CANDIDATES = 400;
/** Most memories one query word brings to the full-text ranking (at least the pool). */
const TEXT_MATCHES_PER_WORD = 1_000;

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
   * A promise lets the text ranking run while the query is embedded; undefined means text only.
   */
  vector?: QueryVector | PromiseLike<QueryVector | undefined>;
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
  /** Embedded: each queried user's memories in this process, which answer both arms of a query about the present. */
  resident?: ResidentMemories;
  /** The vectors of users' recent queries (QUERY_CACHE_SIZE, QUERY_CACHE_TTL). */
  queryVectors?: QueryVectorCache;
  /** Corpora of at least this many memories are matched through the word index (default WORD_INDEX_MIN_CORPUS); smaller ones row by row. */
  wordIndexMinCorpus?: number;
  /** The scheduled decay's λ, at which a recalled memory's retention is computed (default: the default preset's). */
  retentionLambda?: number;
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
 * Hybrid recall (S2): nearest neighbours by cosine distance over `halfvec` (rows without an
 * embedding are skipped there) and a BM25-weighted full-text ranking (which finds them), fused
 * with RRF. Returns the fused score with the similarity and lexical coverage that relevance gating
 * and final scoring use.
 *
 * The full-text ranking needs no vector, so it runs while the query is still being embedded
 * (`query.vector` may be a promise): a query's embedding was a third of a context window's time at
 * 100K memories with the offline model, and a network call with Gemini. The two rankings are fused
 * in the process, and one last statement reads only the memories returned. Each statement runs in
 * a transaction of its own, so the embedded database is free for other requests in between.
 */
export async function recallMemories(db: Database, query: RecallQuery, settings: RecallSettings = {}): Promise<RecalledMemory[]> {
  return readHits(db, query, await fuseHits(db, query, settings), retentionAtQuery(query, settings));
}

/** Recalled memories' retention: at the query's time, at the service's decay λ. */
export function retentionAtQuery(query: { now: Date }, settings: RecallSettings): RetentionClock {
  return { lambda: settings.retentionLambda ?? RETENTION_PRESETS.default.lambda, now: query.now };
}

/** A turn among recall's best hits, whose next turn in its session a context window brings along. */
export interface TurnAnchor {
  id: string;
  sessionId: string;
  seq: number;
}

/**
 * Recall, and the turn after each of the `count` best turn hits (CONTEXT_FOLLOWING_TURNS): which
 * turns those are is known once the rankings are fused, so the two reads run side by side (on a
 * server, on two connections) instead of one after the other. An anchor may have been replaced
 * since it was ranked; its follower is then read but has nothing to follow in `ranked`.
 */
export async function recallWithFollowingTurns(
  db: Database,
  query: RecallQuery,
  settings: RecallSettings,
  count: number,
): Promise<{ ranked: RecalledMemory[]; anchors: TurnAnchor[]; following: RecalledMemory[] }> {
  const fused = await fuseHits(db, query, settings);
  const anchors = fused.best
    .flatMap((hit) =>
      hit.session_id !== null && hit.turn_seq !== null ? [{ id: hit.id, sessionId: hit.session_id, seq: hit.turn_seq }] : [],
    )
    .slice(0, count);
  const clock = retentionAtQuery(query, settings);
  const [ranked, following] = await Promise.all([readHits(db, query, fused, clock), followingTurns(db, query, anchors, clock)]);
  return { ranked, anchors, following };
}

/** Both rankings fused: the best `limit` hits, and the query's vector when the exact similarity is still to be read. */
interface FusedRecall {
  best: FusedHit[];
  visible: SQL;
  /** The resident copy ranks by 8-bit vectors: the exact similarity is read with the rows returned. */
  exact: string | undefined;
}

async function fuseHits(db: Database, query: RecallQuery, settings: RecallSettings): Promise<FusedRecall> {
  const pool = query.candidates ?? Math.max(query.limit * 3, 20);
  const visible = visibleMemories(query, query);
  // Both resident arms catch up with writes committed before this point: one change-log read serves both.
  const readAfter = settings.resident?.ticket();
  const [texts, nearest] = await Promise.all([
    rankByText(db, query, visible, pool, settings, readAfter),
    Promise.resolve(query.vector).then(async (vector) => ({
      vector,
      ...(await rankByVector(db, query, vector, visible, pool, settings, readAfter)),
    })),
  ]);
  const best = fuseRankings({ vector: nearest.hits, text: texts }, settings.neighbourWeight ?? 0, query.limit);
  const exact = nearest.approximate && nearest.vector ? toVectorLiteral(nearest.vector.values) : undefined;
  return { best, visible, exact };
}

/** The fused hits' rows, in fusion's order, those no longer visible left out. */
async function readHits(
  db: Database,
  query: RecallQuery,
  { best, visible, exact }: FusedRecall,
  clock: RetentionClock,
): Promise<RecalledMemory[]> {
  if (best.length === 0) return [];
  // Only the ids go to the database: the scores stay here, and so does the order (fusion's). A
  // 48 KB JSON of scores took 1.5 ms of a real Postgres's parsing and planning on each request.
  // Each row as one JSON value: on PGlite a row of 17 columns cost ~2 µs a column to hand over
  // and parse; one JSON text parses natively (a recall's 40 rows: 1.4 → 0.8 ms).
  const rows = await queryRowsPrepared<{ row: RecalledRow }>(
    db,
    sql`SELECT row_to_json(w) AS row FROM (
          SELECT r.*, ${supersededSql(query.asOf ?? query.now)} AS superseded FROM (
            SELECT ${RECALLED_COLUMNS},
                   ${exact ? sql`(1 - (m.embedding <=> ${exact}::halfvec))::float8` : sql`NULL::float8`} AS exact_similarity
              FROM memories m
             -- Again: a hit may have been replaced or expired since it was ranked.
             WHERE m.id = ANY(${`{${best.map((hit) => hit.id).join(",")}}`}::uuid[]) AND ${visible}
          ) r
        ) w`,
  );
  const read = new Map(rows.map(({ row }) => [row.id, row]));
  return best.flatMap((hit) => {
    const row = read.get(hit.id);
    if (!row) return [];
    const similarity = hit.vector_rank !== null && row.exact_similarity != null ? Number(row.exact_similarity) : hit.similarity;
    const { score, fused, neighbour_boost, coverage, vector_rank, text_rank } = hit;
    return [toRecalled({ ...row, score, fused, neighbour_boost, similarity, coverage, vector_rank, text_rank }, clock)];
  });
}

/** A query's vector, the model that made it and, once that model's HNSW index is valid, its dimension. */
export interface QueryVector {
  values: number[];
  model: string;
  annDimensions?: number;
}

/**
 * The `pool` nearest visible memories of the query's model: from the resident copy (embedded; its
 * similarities `approximate`, of 8-bit vectors), else from SQL (the model's HNSW index, or
 * binary-quantised candidates re-ranked exactly).
 */
async function rankByVector(
  db: Database,
  query: RecallQuery,
  vector: QueryVector | undefined,
  visible: SQL,
  pool: number,
  settings: RecallSettings,
  readAfter?: number,
): Promise<{ hits: RankedHit[]; approximate: boolean }> {
  if (!vector) return { hits: [], approximate: false };
  if (!vector.annDimensions) {
    const resident = await residentNeighbours(db, residentScope(query, readAfter), vector, pool, settings.resident);
    if (resident) return { hits: resident, approximate: true };
  }
  // JIT off as in the text arm; the HNSW scan goes on until the pool is full (relaxed order, re-sorted by the statement).
  const scan: Record<string, string> = vector.annDimensions
    ? { jit: "off", "hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": String(annEfSearch(pool)) }
    : { jit: "off" };
  const hits = await queryRowsWithSettings<RankedHit>(db, scan, vectorArmSql(visible, vector, pool));
  return { hits, approximate: false };
}

/**
 * The BM25 ranking of the visible memories: corpus statistics, then the ranking itself. A small
 * corpus (under `wordIndexMinCorpus`) is read row by row, once for the statistics and once for the
 * ranking. A large one goes through the word index, JIT off, its statistics cached; only
 * memories holding one of the query's essential words are read (`essentialTerms`), which leaves the
 * result as it was: a name in most of a conversation's turns no longer makes every query read most
 * of the user's memories. A word held by more than `TEXT_MATCHES_PER_WORD` memories brings only that
 * many of them (which ones is up to the plan). Of a long query, only the `MAX_QUERY_WORDS` rarest
 * words are weighed (`bm25Weights`); a large corpus counts only as many (`wordsToCount`).
 */
async function rankByText(
  db: Database,
  query: RecallQuery,
  visible: SQL,
  pool: number,
  settings: RecallSettings,
  readAfter?: number,
): Promise<RankedHit[]> {
  const resident = await residentMatches(db, query.text, residentScope(query, readAfter), pool, settings);
  if (resident) return resident;
  const statisticsKey = query.asOf || query.window ? undefined : `${query.appId}\u0000${query.userId}\u0000${query.types?.join(",") ?? ""}`;
  const { statistics } = settings;
  const known = statisticsKey ? statistics?.lookup(statisticsKey) : undefined;
  const minCoverage = settings.minTextCoverage ?? 0;
  const wordIndexMinCorpus = settings.wordIndexMinCorpus ?? WORD_INDEX_MIN_CORPUS;
  const lexemes = await queryLexemes(db, query.text);
  if (lexemes.length === 0) return [];
  // A corpus not known to be large is read row by row, in two passes whatever the number of words
  // (no transaction: neither statement costs enough for JIT); one that turns out large is not.
  if (!known || known.n < wordIndexMinCorpus) {
    const corpus = await smallCorpusStatistics(db, visible, lexemes, wordIndexMinCorpus);
    if (corpus) {
      const weights = essentialTerms(bm25Weights(corpus), minCoverage);
      return rankByWords(db, { visible, weights, avgLength: corpus.avgLength, minCoverage, pool, turnSeq: TURN_SEQ });
    }
  }
  // The planner's cost of the text arm (it cannot know how few rows the weights match) passes
  // jit_above_cost at scale, and compiling the statement then took 70 of its 107 ms on a real
  // Postgres with 100K memories; JIT pays off for analytics, never for a 10 ms lookup. Each
  // statement carries the setting (one round trip each, no transaction around them).
  const jitOff = withSettings(db, { jit: "off" });
  const size = known?.n ?? (await countVisible(jitOff, visible));
  const words = await wordsToCount(jitOff, visible, lexemes, DEFAULT_COUNT_LIMITS.sample);
  const corpus = await corpusStatistics(jitOff, visible, words, known, DEFAULT_COUNT_LIMITS, size);
  if (statisticsKey) statistics?.remember(statisticsKey, corpus);
  const weights = essentialTerms(bm25Weights(corpus), minCoverage);
  return rankByWords(jitOff, {
    visible,
    weights,
    avgLength: corpus.avgLength,
    minCoverage,
    pool,
    turnSeq: TURN_SEQ,
    matchesPerWord: Math.max(TEXT_MATCHES_PER_WORD, pool),
  });
}

/**
 * Marks the words a memory must hold one of to reach `minCoverage` of the query's idf mass. The
 * commonest words whose idf together stays below that share cannot qualify a memory on their own,
 * so candidates are only looked up through the others (the "essential" words of MaxScore); the
 * common ones still add to the score of every candidate that holds them.
 */
export function essentialTerms(
  weights: { lexeme: string; idf: number }[],
  minCoverage: number,
): { lexeme: string; idf: number; essential: boolean }[] {
  const threshold = minCoverage * weights.reduce((sum, weight) => sum + weight.idf, 0);
  let dropped = 0;
  const inessential = new Set<string>();
  for (const weight of [...weights].sort((a, b) => a.idf - b.idf)) {
    if (dropped + weight.idf >= threshold) break;
    dropped += weight.idf;
    inessential.add(weight.lexeme);
  }
  return weights.map((weight) => ({ ...weight, essential: !inessential.has(weight.lexeme) }));
}

type ResidentScope = { appId: string; userId: string; now: Date; types?: MemoryType[]; readAfter?: number };

/**
 * What both resident arms ask the copy for: the user's memories at `now`, of `types`, caught up
 * past the recall's `readAfter` ticket. Only for a query about the present (a past `asOf` or a
 * window selects rows the copy does not hold or would scan in vain); undefined sends the query to SQL.
 */
function residentScope(query: RecallQuery, readAfter: number | undefined): ResidentScope | undefined {
  if (query.asOf || query.window) return undefined;
  return {
    appId: query.appId,
    userId: query.userId,
    now: query.now,
    ...(query.types ? { types: query.types } : {}),
    ...(readAfter === undefined ? {} : { readAfter }),
  };
}

/** The vector arm from the resident copy, for a query about the present of the copy's model; undefined sends the query to SQL. */
async function residentNeighbours(
  db: Database,
  scope: ResidentScope | undefined,
  vector: QueryVector,
  pool: number,
  resident: ResidentMemories | undefined,
): Promise<RankedHit[] | undefined> {
  if (!resident || !scope || vector.model !== resident.model) return undefined;
  const hits = await resident.nearest(db, { ...scope, values: vector.values }, Math.max(pool * BQ_OVERSAMPLING, BQ_MIN_CANDIDATES), pool);
  return hits?.map((hit) => rankedHit(hit, hit.rank, { similarity: hit.similarity }));
}

/** The full-text arm from the resident copy, for a query about the present; undefined sends the query to SQL. */
async function residentMatches(
  db: Database,
  text: string,
  scope: ResidentScope | undefined,
  pool: number,
  settings: RecallSettings,
): Promise<RankedHit[] | undefined> {
  const { resident } = settings;
  if (!resident || !scope) return undefined;
  const lexemes = await queryLexemes(db, text);
  const hits = await resident.matching(db, { ...scope, lexemes }, settings.minTextCoverage ?? 0, pool);
  return hits?.map((hit, index) => rankedHit(hit, index + 1, { coverage: hit.coverage }));
}

/** A resident memory as a ranking's hit, with the signal its arm found it by. */
const rankedHit = (row: ResidentRow, rank: number, signal: { similarity: number } | { coverage: number }): RankedHit => ({
  id: row.id,
  session_id: row.sessionId,
  turn_seq: row.turnSeq,
  created_at: row.createdAt,
  rank,
  ...signal,
});

/** The `pool` nearest visible memories of the query's model, ranked. */
function vectorArmSql(visible: SQL, vector: QueryVector, pool: number): SQL {
  const literal = toVectorLiteral(vector.values);
  if (vector.annDimensions) {
    // The HNSW index of this model (real Postgres): an iterative scan keeps going until it has
    // found enough of this user's visible memories; relaxed order is re-sorted exactly here.
    const dimensions = sql.raw(String(vector.annDimensions));
    return sql`SELECT id, session_id, turn_seq, created_at::text AS created_at, (row_number() OVER (ORDER BY distance))::int AS rank, (1 - distance)::float8 AS similarity FROM (
        SELECT m.id, m.session_id, ${TURN_SEQ} AS turn_seq, m.created_at, m.embedding::halfvec(${dimensions}) <=> ${literal}::halfvec(${dimensions}) AS distance
          FROM memories m
         WHERE ${visible} AND m.embedding_model = ${vector.model}
         ORDER BY m.embedding::halfvec(${dimensions}) <=> ${literal}::halfvec(${dimensions})
         LIMIT ${pool}
      ) nearest`;
  }
  // Candidates by Hamming distance over binary-quantised vectors (cheap), re-ranked by exact
  // cosine; with fewer rows than the oversampling this is an exact search.
  return sql`SELECT id, session_id, turn_seq, created_at::text AS created_at, (row_number() OVER (ORDER BY distance))::int AS rank, (1 - distance)::float8 AS similarity FROM (
      SELECT c.id, c.session_id, c.turn_seq, c.created_at, c.embedding <=> ${literal}::halfvec AS distance FROM (
        SELECT m.id, m.session_id, ${TURN_SEQ} AS turn_seq, m.created_at, m.embedding
          FROM memories m
         WHERE ${visible} AND m.embedding_bits IS NOT NULL AND m.embedding_model = ${vector.model}
         ORDER BY m.embedding_bits <~> binary_quantize(${literal}::halfvec)::varbit
         LIMIT ${Math.max(pool * BQ_OVERSAMPLING, BQ_MIN_CANDIDATES)}
      ) c
      ORDER BY distance
      LIMIT ${pool}
    ) nearest`;
}

/** A turn's place in its session (null for every other memory): what makes two turns neighbours. */
const TURN_SEQ = sql`CASE WHEN m.subtype = 'turn' THEN (m.metadata ->> 'seq')::int END`;

const RECALLED_COLUMNS = sql`m.id, m.app_id, m.user_id, m.type, m.subtype, m.session_id, (m.metadata ->> 'seq')::int AS seq, m.content, m.importance,
       m.access_count, m.last_accessed_at, m.reinforcement_count, m.valid_at, m.created_at,
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
  sources: SourceRef[] | null;
  superseded?: unknown;
  exact_similarity?: number | null;
};

function toRecalled(row: RecalledRow, clock: RetentionClock): RecalledMemory {
  const accessCount = Number(row.access_count);
  return {
    id: row.id,
    type: row.type,
    subtype: row.subtype,
    sessionId: row.session_id,
    seq: row.seq === null ? null : Number(row.seq),
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
  clock: RetentionClock,
): Promise<RecalledMemory[]> {
  if (anchors.length === 0) return [];
  const { now } = clock;
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
  return rows.map((row) => toRecalled(row, clock));
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
          SELECT ${RECALLED_COLUMNS}, 0::float8 AS score, 0::float8 AS similarity, 0::float8 AS coverage,
                 NULL::int AS vector_rank, NULL::int AS text_rank
            FROM memories m WHERE m.id IN ${ids} AND ${visibleMemories(scope, { now })}
        ) r`,
  );
  return rows.map((row) => toRecalled(row, clock));
}
