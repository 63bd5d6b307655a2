import { type SQL, sql } from "drizzle-orm";
import { queryRowsWithSettings } from "../../../db/pool-statements.js";
import { readGraphQuery } from "../../graph/query-entities.js";
import { m } from "../../visibility.js";
import type { RankedHit } from "../fusion.js";
import type { RecallChannel, RecallIndex, RecallRequest } from "./recall-index.js";
import { TURN_SEQ } from "./turn-seq.js";

/** How far and how wide the graph channel walks: every bound is in rows, so the walk's time is bounded too. */
export interface GraphWalkLimits {
  /** Entities the query names (or implies) that a walk starts from. */
  seeds: number;
  /** Edges followed from one entity, those the query asks along first. */
  fanout: number;
  /** Entities reached, nearest first. */
  nodes: number;
  /** An entity's latest mentions whose memories are ranked. */
  mentionsPerNode: number;
}

export const DEFAULT_GRAPH_LIMITS: GraphWalkLimits = { seeds: 5, fanout: 8, nodes: 40, mentionsPerNode: 200 };

/**
 * The entity graph as a recall engine (issue 40): the entities a query names (by any of their
 * names) — and the user's own node when it asks along a relation of theirs ("my daughter's
 * teacher", "where does the user live") — their neighbourhood to two hops by a recursive walk over
 * the relations true at the query's time (retracted and superseded ones too: they still tie the
 * people to what was said of them), and the memories of the events that mention those entities
 * (or that they said). The user's node is a hub: the walk leaves it only along the relations the
 * query asks about, and its own mentions (every turn of the user) are never ranked.
 * A memory's graph score is its entity's distance weight — 1 for a named entity, ½ a hop away, ¼
 * two hops away, doubled when the walk went along a relation the query asks about — times one
 * plus the query's words it holds; each hit says how the walk reached it (`via`). Answers every
 * request; a query that names no entity has no ranking.
 *
 * @example
 * recallChannels({ channels: [graphChannel()] }); // vector, text, graph
 */
export function graphIndex(limits: GraphWalkLimits = DEFAULT_GRAPH_LIMITS): RecallIndex {
  return { name: "graph-walk", rank: async (request) => ({ hits: await walkGraph(request, limits) }) };
}

/** The graph channel, answered by `graphIndex`. */
export function graphChannel(limits: GraphWalkLimits = DEFAULT_GRAPH_LIMITS): RecallChannel {
  return { name: "graph", engines: [graphIndex(limits)] };
}

interface GraphHit extends RankedHit {
  hop: number;
}

/** Query words counted in a memory's text: a long query's first ones. */
const MAX_COUNTED_WORDS = 16;

/** `values` as one `text[]` parameter list, empty or not. */
const textArray = (values: readonly string[]): SQL =>
  sql`ARRAY[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;

/** How many of the query's words a memory `m` holds. */
function wordsHeld(lexemes: readonly string[]): SQL {
  if (lexemes.length === 0) return sql`0`;
  return sql.join(
    lexemes.slice(0, MAX_COUNTED_WORDS).map((lexeme) => sql`(${m.contentTsv} @@ quote_literal(${lexeme})::tsquery)::int`),
    sql` + `,
  );
}

async function walkGraph(request: RecallRequest, limits: GraphWalkLimits): Promise<RankedHit[]> {
  const query = readGraphQuery(request.text);
  if (query.keys.length === 0) return [];
  const at = (request.asOf ?? request.now).toISOString();
  const selfSeed = query.firstPerson && query.asked.length > 0;
  const lexemes = await request.lexemes();
  const hits = await queryRowsWithSettings<GraphHit>(
    request.db,
    { jit: "off" },
    sql`WITH RECURSIVE seeds AS (
          SELECT e.id, e.name, e.self FROM entities e
           WHERE e.app_id = ${request.appId} AND e.user_id = ${request.userId} AND e.expired_at IS NULL AND e.valid_at <= ${at}::timestamptz
             AND ((e.keys && ${textArray(query.keys)} AND NOT e.self) ${
               query.asked.length > 0 ? sql`OR (e.self AND (${selfSeed} OR e.keys && ${textArray(query.keys)}))` : sql``
             })
           ORDER BY e.self, e.valid_at LIMIT ${limits.seeds}
        ), walk (id, hop, via, asked, path, self) AS (
          SELECT id, 0, name, false, ARRAY[id], self FROM seeds
          UNION ALL
          SELECT n.id, w.hop + 1, w.via || ' → ' || r.predicate || ' → ' || n.name, w.asked OR r.predicate = ANY(${textArray(query.asked)}), w.path || n.id, n.self
            FROM walk w
            CROSS JOIN LATERAL (
              SELECT r.predicate, CASE WHEN r.subject_id = w.id THEN r.object_id ELSE r.subject_id END AS other
                FROM relations r
               WHERE (r.subject_id = w.id OR r.object_id = w.id) AND r.object_id IS NOT NULL
                 AND r.valid_at <= ${at}::timestamptz AND (r.expired_at IS NULL OR r.superseded_by IS NOT NULL)
                 AND (NOT w.self OR r.predicate = ANY(${textArray(query.asked)}))
               ORDER BY r.predicate = ANY(${textArray(query.asked)}) DESC, (r.invalid_at IS NULL OR r.invalid_at > ${at}::timestamptz) DESC, r.valid_at DESC
               LIMIT ${limits.fanout}
            ) r
            JOIN entities n ON n.id = r.other AND n.expired_at IS NULL
           WHERE w.hop < 2 AND NOT n.id = ANY(w.path)
        ), nodes AS (
          SELECT * FROM (SELECT DISTINCT ON (id) id, hop, via, asked FROM walk WHERE NOT self ORDER BY id, asked DESC, hop) nearest
           ORDER BY asked DESC, hop LIMIT ${limits.nodes}
        ), mentioned AS (
          SELECT n.hop, n.via, (CASE n.hop WHEN 0 THEN 1.0 WHEN 1 THEN 0.5 ELSE 0.25 END) * (CASE WHEN n.asked THEN 2 ELSE 1 END) AS weight, em.event_id
            FROM nodes n
            CROSS JOIN LATERAL (
              SELECT em.event_id FROM entity_mentions em WHERE em.entity_id = n.id AND em.occurred_at <= ${at}::timestamptz
               ORDER BY em.occurred_at DESC LIMIT ${limits.mentionsPerNode}
            ) em
        ), scored AS (
          -- From the mentions outwards (OFFSET 0 keeps each step a lookup by the one before: the
          -- planner would otherwise read every memory of the user first, reached or not).
          SELECT DISTINCT ON (${m.id}) ${m.id} AS id, ${m.sessionId} AS session_id, ${TURN_SEQ} AS turn_seq, ${m.createdAt} AS created_at, x.hop, x.via,
                 x.weight * (1 + ${wordsHeld(lexemes)}) AS score
            FROM mentioned x
            CROSS JOIN LATERAL (SELECT ms.memory_id FROM memory_sources ms WHERE ms.event_id = x.event_id OFFSET 0) ms
            CROSS JOIN LATERAL (SELECT * FROM memories m WHERE ${m.id} = ms.memory_id AND ${request.visible} OFFSET 0) m
           ORDER BY ${m.id}, x.weight DESC
        )
        SELECT id, session_id, turn_seq, created_at::text AS created_at, hop, via,
               (row_number() OVER (ORDER BY score DESC, created_at DESC))::int AS rank
          FROM scored ORDER BY score DESC, created_at DESC LIMIT ${request.pool}`,
  );
  return hits.map(({ hop, via, ...hit }) => ({ ...hit, via: hop === 0 ? `${via} (named)` : `${via}, ${hop} hop${hop > 1 ? "s" : ""}` }));
}
