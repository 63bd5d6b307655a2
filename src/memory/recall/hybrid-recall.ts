import type { SQL } from "drizzle-orm";
import type { Database } from "../../db/database.js";
import { toVectorLiteral } from "../../db/vector.js";
import { RETENTION_PRESETS, type RetentionClock } from "../lifecycle/retention.js";
import { m, type VisibilityFilters, visibleAt } from "../visibility.js";
import { type RecallEngines, recallChannels } from "./engines/channels.js";
import { type QueryVector, type RecallRequest, rankChannel } from "./engines/recall-index.js";
import { queryLexemes } from "./engines/sql-bm25/text-ranking.js";
import { type FusedHit, fuseRankings } from "./fusion.js";
import type { QueryVectorCache } from "./query-vector-cache.js";
import { followingTurns, type RecalledMemory, readHits } from "./recalled-rows.js";
import type { StatementKind } from "./statement-kinds.js";

export type { SourceRef } from "../provenance.js";
export type { QueryVector } from "./engines/recall-index.js";
export { followingTurns, type RecalledMemory, recallByIds, sourceTurns } from "./recalled-rows.js";

/** What a recall filters by: the present or a past moment (`asOf`), types, a window of world time. */
export type RecallFilters = VisibilityFilters;

export interface RecallQuery extends RecallFilters {
  appId: string;
  userId: string;
  text: string;
  /**
   * The query's vector and the model that made it; only vectors of that model are compared. A
   * promise lets the text channel rank while the query is embedded; undefined means text only.
   */
  vector?: QueryVector | PromiseLike<QueryVector | undefined>;
  limit: number;
  /** Candidates taken from each channel before fusion. */
  candidates?: number;
  /** The kinds of statement the question asks about (`kindsAskedAbout`): the kind channel ranks the user's statements of those kinds. */
  kinds?: readonly StatementKind[];
}

/** How a service recalls, the same for every query: its engines (and what they keep), and how hits are fused and scored. */
export interface RecallSettings extends RecallEngines {
  /** Share of the better fused score of a turn's neighbours (seq ± 1) it gains (context windows: CONTEXT_NEIGHBOUR_WEIGHT); default 0. */
  neighbourWeight?: number;
  /** A text hit counts in fusion by the share of the query's words it matches (RECALL_COVERAGE_WEIGHTED); default off. */
  coverageWeighted?: boolean;
  /** The scheduled decay's λ, at which a recalled memory's retention is computed (default: the default preset's). */
  retentionLambda?: number;
  /** The vectors of users' recent queries (QUERY_CACHE_SIZE, QUERY_CACHE_TTL), used where the query is embedded. */
  queryVectors?: QueryVectorCache;
}

/**
 * Hybrid recall: every channel ranks the memories the query may see (vector: nearest by cosine;
 * text: BM25; and any channel the settings add), each answered by the first engine able to
 * (`recallChannels`); the rankings are fused by RRF in the process, and one last statement reads
 * the rows of the best hits. The text channel needs no vector, so it runs while the query is still
 * embedded. Each statement runs on its own, so the embedded database is free for other requests in
 * between.
 *
 * @example
 * const hits = await recallMemories(db, { appId: "default", userId: "ana", text: "pets", limit: 10, now: new Date() });
 */
export async function recallMemories(db: Database, query: RecallQuery, settings: RecallSettings = {}): Promise<RecalledMemory[]> {
  const fused = await fuseHits(db, query, settings);
  return readHits(db, fused.best, fused.visible, query.asOf ?? query.now, fused.exact, retentionAtQuery(query, settings));
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
  const [ranked, following] = await Promise.all([
    readHits(db, fused.best, fused.visible, query.asOf ?? query.now, fused.exact, clock),
    followingTurns(db, query, anchors, clock),
  ]);
  return { ranked, anchors, following };
}

/** The channels' rankings fused: the best `limit` hits, and the query vector when exact similarities are still to be read. */
interface FusedRecall {
  best: FusedHit[];
  visible: SQL;
  exact: string | undefined;
}

async function fuseHits(db: Database, query: RecallQuery, settings: RecallSettings): Promise<FusedRecall> {
  const vector = Promise.resolve(query.vector);
  let lexemes: Promise<string[]> | undefined;
  const request: RecallRequest = {
    ...query,
    db,
    visible: visibleAt(m, query, query),
    pool: query.candidates ?? Math.max(query.limit * 3, 20),
    vector,
    lexemes: () => {
      lexemes ??= queryLexemes(db, query.text);
      return lexemes;
    },
  };
  const rankings = await Promise.all(recallChannels(settings).map((channel) => rankChannel(channel, request)));
  const best = fuseRankings(
    Object.fromEntries(rankings.map((ranking) => [ranking.channel, ranking.hits])),
    settings.neighbourWeight ?? 0,
    query.limit,
    settings.coverageWeighted ?? false,
  );
  const approximate = rankings.some((ranking) => ranking.channel === "vector" && ranking.approximate);
  const values = approximate ? (await vector)?.values : undefined;
  return { best, visible: request.visible, exact: values ? toVectorLiteral(values) : undefined };
}
