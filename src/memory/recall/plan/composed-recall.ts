import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../../db/database.js";
import { queryRowsWithSettings } from "../../../db/pool-statements.js";
import type { RetentionClock } from "../../lifecycle/retention.js";
import { m, type VisibilityFilters, visibleAt } from "../../visibility.js";
import type { PlanRequest, QueryVector, RankingPlan, RecallChannel } from "../engines/recall-index.js";
import { type LaterStatementRow, laterStatementsOf as laterByStatement, laterStatementsSql } from "../later-statements.js";
import { ownStatementCandidatesSql } from "../own-statements.js";
import {
  followingTurnsSql,
  RECALLED_COLUMNS,
  type RecalledMemory,
  type RecalledRow,
  sourceTurnsSql,
  toRecalled,
  turnsByDerived,
} from "../recalled-rows.js";
import type { StatementKind } from "../statement-kinds.js";
import { supersededSql } from "../superseded.js";
import { fusedHitsSql, type PlannedChannel } from "./fusion-sql.js";
import { type LaterAhead, readAheadFor, type SourcesAhead, type TurnAnchor, type WindowReads } from "./read-ahead.js";

/** One recall as a composed plan takes it: the query's vector already there (or not: text only). */
export interface ComposedQuery extends VisibilityFilters {
  appId: string;
  userId: string;
  text: string;
  vector: QueryVector | undefined;
  limit: number;
  /** Hits each channel returns at most. */
  pool: number;
  /** Share of a neighbouring turn's fused score a turn gains. */
  neighbourWeight: number;
  /** A text hit counts in fusion by its coverage (`fuseRankings`). */
  coverageWeighted: boolean;
  /** The kinds of statement the question asks about, for the kind channel. */
  kinds?: readonly StatementKind[];
}

/** What one statement recalled: the ranked rows, the following turns, and what it read ahead for the window. */
export interface ComposedRecall {
  ranked: RecalledMemory[];
  anchors: TurnAnchor[];
  following: RecalledMemory[];
  later?: LaterAhead;
  sources?: SourcesAhead;
  /** The candidates of the asker's own statements (`ownStatementsOf` picks), nearest first. */
  own?: RecalledMemory[];
}

/** Whether every engine of every channel can offer its ranking as part of one statement (else recall runs channel by channel). */
export const composable = (channels: readonly RecallChannel[]): boolean =>
  channels.every((channel) => channel.engines.every((engine) => engine.plan !== undefined));

/**
 * Recall in one statement, one round trip on a server: each channel's ranking from the first of
 * its engines that can answer (`RecallIndex.plan`), their fusion (`fusedHitsSql`), the rows of the
 * best hits with what replaced them, the turns after the best turn hits and, for a context window,
 * the later statements and source turns of the first candidates by fused rank (`readAheadFor`).
 * The same results as the channels' statements one after another, read in one snapshot (so no hit
 * is lost between its ranking and its row). Undefined when an engine's plan cannot rank after all
 * (a corpus larger than the text channel planned for): recall then runs channel by channel.
 *
 * @example
 * const recalled = await composedRecall(db, query, recallChannels(settings), clock, { following: 5 });
 */
export async function composedRecall(
  db: Database,
  query: ComposedQuery,
  channels: readonly RecallChannel[],
  clock: RetentionClock,
  reads: WindowReads,
): Promise<ComposedRecall | undefined> {
  const visible = visibleAt(m, query, query);
  const planned = channels.map((channel) => ({ channel: channel.name, plan: planChannel(channel, { ...query, visible }) }));
  const settings: Record<string, string> = { jit: "off" };
  for (const { plan } of planned) {
    for (const [name, value] of Object.entries(plan?.settings ?? {})) {
      // Two engines wanting one setting differently cannot share a statement.
      if (settings[name] !== undefined && settings[name] !== value) return undefined;
      settings[name] = value;
    }
  }
  const fused = fusedHitsSql(
    planned.map(({ channel, plan }): PlannedChannel => ({ channel, hits: plan?.hits })),
    query.neighbourWeight,
    query.limit,
    query.coverageWeighted,
  );
  const relations = [...planned.flatMap(({ plan }) => plan?.relations ?? []), ...fused, ...rowRelations(query, reads)];
  const reports = planned.map(({ plan }) => plan?.report ?? sql`NULL::json`);
  const [row] = await queryRowsWithSettings<ComposedRow>(
    db,
    settings,
    sql`WITH ${sql.join(relations, sql`,\n`)}
        SELECT (SELECT coalesce(json_agg(r ORDER BY r.position), '[]'::json) FROM recall_ranked r) AS ranked,
               (SELECT coalesce(json_agg(json_build_object('id', a.id, 'sessionId', a.session_id, 'seq', a.turn_seq) ORDER BY a.position), '[]'::json)
                  FROM recall_anchors a) AS anchors,
               (SELECT coalesce(json_agg(f), '[]'::json) FROM recall_following f) AS following,
               ${reads.laterStatements?.count ? LATER_ANSWER : sql`NULL::json`} AS later,
               ${reads.sourceTurns ? SOURCES_ANSWER : sql`NULL::json`} AS sources,
               ${readsOwn(reads) ? OWN_ANSWER : sql`NULL::json`} AS own,
               json_build_array(${sql.join(reports, sql`, `)}) AS reports`,
  );
  if (!row) return undefined;
  const reported = parseJson<unknown[]>(row.reports) ?? [];
  if (!planned.every(({ plan }, index) => plan?.accept?.(reported[index] ?? null) ?? true)) return undefined;
  const later = parseJson<{ considered: { id: string; after: string }[] | null; found: LaterStatementRow[] | null }>(row.later);
  const sources = parseJson<{ considered: string[] | null; found: (RecalledRow & { derived_id: string })[] | null }>(row.sources);
  const laterOptions = {
    perStatement: reads.laterStatements?.perStatement ?? 0,
    minSimilarity: reads.laterStatements?.minSimilarity ?? 0,
    byName: reads.laterStatements?.byName ?? false,
    inQuestions: reads.laterStatements?.inQuestions ?? false,
    now: query.now,
  };
  return {
    ranked: (parseJson<RecalledRow[]>(row.ranked) ?? []).map((recalled) => toRecalled(recalled, clock)),
    anchors: parseJson<TurnAnchor[]>(row.anchors) ?? [],
    following: (parseJson<RecalledRow[]>(row.following) ?? []).map((recalled) => toRecalled(recalled, clock)),
    ...(later
      ? {
          later: {
            options: laterOptions,
            considered: new Map((later.considered ?? []).map((statement) => [statement.id, new Date(statement.after).getTime()])),
            found: laterByStatement(later.found ?? [], laterOptions.perStatement, laterOptions),
          },
        }
      : {}),
    ...(sources ? { sources: { considered: new Set(sources.considered ?? []), found: turnsByDerived(sources.found ?? [], clock) } } : {}),
    ...(row.own !== null && row.own !== undefined
      ? { own: (parseJson<RecalledRow[]>(row.own) ?? []).map((recalled) => toRecalled(recalled, clock)) }
      : {}),
  };
}

interface ComposedRow {
  ranked: unknown;
  anchors: unknown;
  following: unknown;
  later: unknown;
  sources: unknown;
  own: unknown;
  reports: unknown;
}

/** Whether the plan reads the asker's own statements: asked for, and a vector to find them by. */
const readsOwn = (reads: WindowReads): boolean => (reads.ownStatements?.count ?? 0) > 0 && reads.ownStatements?.vector !== undefined;

/** The first engine of the channel that can answer, as part of the statement; undefined when none can (no hits, as `rankChannel` gives). */
function planChannel(
  channel: RecallChannel,
  query: Omit<ComposedQuery, "neighbourWeight" | "limit" | "coverageWeighted"> & { visible: SQL },
) {
  const prefix = channel.name.replace(/[^A-Za-z0-9]/g, "_").toLowerCase();
  const request: PlanRequest = { ...query, relation: (local) => sql`${sql.identifier(`${prefix}_${local}`)}` };
  for (const engine of channel.engines) {
    const plan: RankingPlan | undefined = engine.plan?.(request);
    if (plan) return plan;
  }
  return undefined;
}

/**
 * The relations after fusion: the best hits' rows (what replaced each, at the query's time), the
 * anchors and their following turns, and what a window reads ahead.
 */
function rowRelations(query: ComposedQuery, reads: WindowReads): SQL[] {
  const relations = [
    sql`recall_ranked AS MATERIALIZED (
      SELECT r.*, ${supersededSql(query.asOf ?? query.now)} AS superseded FROM (
        SELECT b.position, b.score, b.fused, b.neighbour_boost, b.similarity, b.coverage, b.vector_rank, b.text_rank, b.channels, ${RECALLED_COLUMNS}
          FROM recall_best b JOIN memories m ON ${m.id} = b.id
      ) r
    )`,
    sql`recall_anchors AS (
      SELECT id, session_id, turn_seq, position FROM recall_best
       WHERE session_id IS NOT NULL AND turn_seq IS NOT NULL ORDER BY position LIMIT ${reads.following}
    )`,
    sql`recall_following AS MATERIALIZED (
      ${followingTurnsSql(query, query.now, sql`SELECT session_id, turn_seq + 1 AS seq FROM recall_anchors`)}
    )`,
  ];
  const own = readsOwn(reads) ? reads.ownStatements : undefined;
  if (own?.vector)
    relations.push(
      sql`recall_own AS MATERIALIZED (${ownStatementCandidatesSql(query, query.now, { statement: own.vector, question: own.question }, own.count)})`,
    );
  const later = reads.laterStatements;
  // The own statements' candidates are read ahead as the ranking's are (`readAheadFor`): one picked past them is read when picked.
  if (later?.count) {
    relations.push(
      sql`recall_statements AS MATERIALIZED (
        SELECT id, after FROM (
          SELECT r.id, ${LAST_SAID} AS after FROM recall_ranked r WHERE ${STATEMENT_LIKE} ORDER BY r.position LIMIT ${readAheadFor(later.count)}
        ) first_ranked
        UNION
        SELECT id, after FROM (
          SELECT r.id, ${LAST_SAID} AS after FROM recall_ranked r WHERE r.type = 'semantic' ORDER BY r.position LIMIT ${readAheadFor(later.count)}
        ) first_facts
        UNION
        SELECT r.id, ${LAST_SAID} FROM recall_following r WHERE ${STATEMENT_LIKE}
        ${own ? sql`UNION SELECT r.id, ${LAST_SAID} FROM recall_own r WHERE r.position <= ${readAheadFor(own.count)}` : sql``}
      )`,
      sql`recall_later AS MATERIALIZED (
        ${laterStatementsSql(query, sql`SELECT id, after FROM recall_statements`, {
          perStatement: later.perStatement,
          minSimilarity: later.minSimilarity,
          byName: later.byName,
          inQuestions: later.inQuestions,
          now: query.now,
        })}
      )`,
    );
  }
  if (reads.sourceTurns) {
    relations.push(
      sql`recall_facts AS MATERIALIZED (
        SELECT id FROM recall_ranked WHERE type = 'semantic' ORDER BY position LIMIT ${readAheadFor(reads.sourceTurns)}
      )`,
      sql`recall_sources AS MATERIALIZED (
        ${sourceTurnsSql(query, query.now, sql`SELECT f.id AS derived_id, s.event_id FROM recall_facts f JOIN memory_sources s ON s.memory_id = f.id`)}
      )`,
    );
  }
  return relations;
}

/**
 * A candidate that may be a statement (`statementsToLookPast` decides): a fact, or a user's turn
 * (its role recorded, or written before roles were: "user: …").
 */
const STATEMENT_LIKE = sql`(r.type = 'semantic' OR (r.subtype = 'turn' AND coalesce(r.role,
  CASE WHEN starts_with(r.content, 'assistant: ') THEN 'assistant' WHEN starts_with(r.content, 'user: ') THEN 'user' END) = 'user'))`;

/** When a candidate was last said (`lastConfirmedAt`), to the millisecond as the process holds it. */
const LAST_SAID = sql`date_trunc('milliseconds', coalesce((r.provenance ->> 'last')::timestamptz, r.valid_at))`;

const LATER_ANSWER = sql`json_build_object(
  'considered', (SELECT json_agg(json_build_object('id', s.id, 'after', s.after)) FROM recall_statements s),
  'found', (SELECT json_agg(l) FROM recall_later l))`;

const OWN_ANSWER = sql`(SELECT coalesce(json_agg(o ORDER BY o.position), '[]'::json) FROM recall_own o)`;

const SOURCES_ANSWER = sql`json_build_object(
  'considered', (SELECT json_agg(f.id) FROM recall_facts f),
  'found', (SELECT json_agg(s) FROM recall_sources s))`;

/** A JSON column as the driver hands it over: parsed already (a typed query), or text (a simple query's). */
function parseJson<T>(value: unknown): T | undefined {
  if (value === null || value === undefined) return undefined;
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}
