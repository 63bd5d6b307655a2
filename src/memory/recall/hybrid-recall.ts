import type { SQL } from "drizzle-orm";
import type { Database } from "../../db/database.js";
import { isServerDatabase } from "../../db/pool-statements.js";
import { toVectorLiteral } from "../../db/vector.js";
import { RETENTION_PRESETS, type RetentionClock } from "../lifecycle/retention.js";
import type { SourceRef } from "../provenance.js";
import { m, type VisibilityFilters, visibleAt } from "../visibility.js";
import { type RecallEngines, recallChannels } from "./engines/channels.js";
import { type QueryVector, type RecallChannel, type RecallRequest, rankChannel } from "./engines/recall-index.js";
import { queryLexemes } from "./engines/sql-bm25/text-ranking.js";
import { type FusedHit, fuseRankings } from "./fusion.js";
import type { LaterStatement, LaterStatementOptions, StatementAnchor } from "./later-statements.js";
import { nearestOwnStatements, ownStatementsOf } from "./own-statements.js";
import { type ComposedRecall, composable, composedRecall } from "./plan/composed-recall.js";
import { laterStatementsOf, sourceTurnsOf, type TurnAnchor, type WindowReads } from "./plan/read-ahead.js";
import type { QueryVectorCache } from "./query-vector-cache.js";
import { followingTurns, type RecalledMemory, readHits } from "./recalled-rows.js";
import type { StatementReading } from "./speaker-statements.js";
import type { StatementKind } from "./statement-kinds.js";

export type { SourceRef } from "../provenance.js";
export type { QueryVector } from "./engines/recall-index.js";
export type { TurnAnchor, WindowReads } from "./plan/read-ahead.js";
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

/**
 * How recall asks the database: `auto` ranks, fuses and reads rows in one statement where the
 * database is a server and every channel's engines can (`composedRecall`), channel by channel
 * elsewhere (the embedded database, whose resident engines rank in the process); `channels` always
 * channel by channel (a statement per step, as before the composed plan); `composed` one
 * statement wherever the engines can, the embedded database too (for tests that compare the two).
 */
export type RecallPlan = "auto" | "channels" | "composed";

/** How a service recalls, the same for every query: its engines (and what they keep), and how hits are fused and scored. */
export interface RecallSettings extends RecallEngines {
  /** How recall asks the database (RECALL_PLAN); default `auto`. */
  plan?: RecallPlan;
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
 * between. On a server (`RecallSettings.plan`), all of it is one statement once the query is
 * embedded (`composedRecall`): one round trip instead of three in sequence.
 *
 * @example
 * const hits = await recallMemories(db, { appId: "default", userId: "ana", text: "pets", limit: 10, now: new Date() });
 */
export async function recallMemories(db: Database, query: RecallQuery, settings: RecallSettings = {}): Promise<RecalledMemory[]> {
  const composed = await recallInOneStatement(db, query, settings, { following: 0 });
  if (composed) return composed.ranked;
  const fused = await fuseHits(db, query, settings);
  return readHits(db, fused.best, fused.visible, query.asOf ?? query.now, fused.exact, retentionAtQuery(query, settings));
}

/** Recalled memories' retention: at the query's time, at the service's decay λ. */
export function retentionAtQuery(query: { now: Date }, settings: RecallSettings): RetentionClock {
  return { lambda: settings.retentionLambda ?? RETENTION_PRESETS.default.lambda, now: query.now };
}

/** What a window reads past the ranking, as it asks: the own statements' vector still being embedded. */
export type WindowAhead = Omit<WindowReads, "following" | "ownStatements"> & {
  ownStatements?: {
    count: number;
    vector: PromiseLike<QueryVector | undefined>;
    /** The question's own vector, ranking them besides the statement form (CONTEXT_ASKER_CENTRED). */
    question?: PromiseLike<QueryVector | undefined> | undefined;
    reading: StatementReading;
  };
};

/** A context window's recall: the ranked memories, the turns after the best turn hits, and the reads past the ranking the window makes once it has ordered them. */
export interface WindowRecall {
  ranked: RecalledMemory[];
  anchors: TurnAnchor[];
  following: RecalledMemory[];
  /** `laterStatements` of the statements the window picks (read ahead with the ranking when it could be). */
  laterStatements(statements: readonly StatementAnchor[], options: LaterStatementOptions): Promise<Map<string, LaterStatement[]>>;
  /** `sourceTurns` of the facts the window picks (read ahead with the ranking when it could be). */
  sourceTurns(facts: readonly { id: string; sources: readonly SourceRef[] }[]): Promise<Map<string, RecalledMemory[]>>;
  /** The asker's own statements nearest the query, nearest first (`ahead.ownStatements` of them; none when not asked). */
  ownStatements: RecalledMemory[];
}

/**
 * Recall, and the turn after each of the `count` best turn hits (CONTEXT_FOLLOWING_TURNS). On a
 * server it is one statement (`composedRecall`), which also reads ahead what `ahead` says the
 * window will look past the ranking for. Elsewhere, which turns follow is known once the
 * rankings are fused, so the two reads run side by side (on two connections) instead of one after
 * the other, and the window's later reads go to the database when it makes them. An anchor may
 * have been replaced since it was ranked; its follower is then read but has nothing to follow in `ranked`.
 */
export async function recallWithFollowingTurns(
  db: Database,
  query: RecallQuery,
  settings: RecallSettings,
  count: number,
  ahead: WindowAhead = {},
): Promise<WindowRecall> {
  const clock = retentionAtQuery(query, settings);
  const reading = (composed: ComposedRecall | undefined) => ({
    laterStatements: laterStatementsOf(db, query, composed?.later),
    sourceTurns: sourceTurnsOf(db, query, clock, composed?.sources),
  });
  const { ownStatements: asked, ...reads } = ahead;
  const own = asked && asked.count > 0 ? asked : undefined;
  const composed = await recallInOneStatement(db, query, settings, { following: count, ...reads }, own);
  if (composed) {
    const ownStatements = own ? ownStatementsOf(composed.own ?? [], own.count, own.reading) : [];
    return { ranked: composed.ranked, anchors: composed.anchors, following: composed.following, ownStatements, ...reading(composed) };
  }
  // Side by side with the rankings: it needs only its vectors. Awaited below; should a ranking fail
  // first, its own failure must not go unhandled meanwhile.
  const ownRead = Promise.all([own?.vector, own?.question]).then(([statement, question]) =>
    own ? nearestOwnStatements(db, query, { statement, question }, own.count, clock, own.reading) : [],
  );
  ownRead.catch(() => undefined);
  const fused = await fuseHits(db, query, settings);
  const anchors = fused.best
    .flatMap((hit) =>
      hit.session_id !== null && hit.turn_seq !== null ? [{ id: hit.id, sessionId: hit.session_id, seq: hit.turn_seq }] : [],
    )
    .slice(0, count);
  const [ranked, following] = await Promise.all([
    readHits(db, fused.best, fused.visible, query.asOf ?? query.now, fused.exact, clock),
    followingTurns(db, query, anchors, clock),
  ]);
  return { ranked, anchors, following, ownStatements: await ownRead, ...reading(undefined) };
}

/**
 * Recall as one statement (`composedRecall`) when the settings and the database call for it and
 * every channel's engines can; undefined otherwise, or when a plan could not rank after all.
 */
async function recallInOneStatement(
  db: Database,
  query: RecallQuery,
  settings: RecallSettings,
  reads: Omit<WindowReads, "ownStatements">,
  own?: WindowAhead["ownStatements"],
): Promise<ComposedRecall | undefined> {
  const plan = settings.plan ?? "auto";
  if (plan === "channels" || (plan === "auto" && !isServerDatabase(db))) return undefined;
  const channels: RecallChannel[] = recallChannels(settings);
  if (!composable(channels)) return undefined;
  // Both embedded side by side; the statement waits for both.
  const [vector, ownVector, ownQuestion] = await Promise.all([query.vector, own?.vector, own?.question]);
  const pool = query.candidates ?? Math.max(query.limit * 3, 20);
  return composedRecall(
    db,
    { ...query, vector, pool, neighbourWeight: settings.neighbourWeight ?? 0, coverageWeighted: settings.coverageWeighted ?? false },
    channels,
    retentionAtQuery(query, settings),
    { ...reads, ...(own ? { ownStatements: { count: own.count, vector: ownVector, question: ownQuestion, reading: own.reading } } : {}) },
  );
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
