import { type SQL, sql } from "drizzle-orm";
import { RRF_K } from "../fusion.js";

/** A channel's hits relation in a composed plan, and the name fusion gives the ranking. */
export interface PlannedChannel {
  channel: string;
  /** The relation of its hits (`RankingPlan.hits`), or undefined when no engine of the channel could rank. */
  hits: SQL | undefined;
}

/**
 * `fuseRankings` as relations of the composed statement, ending in `recall_best`: the best
 * `limit` hits by score (RRF over the channels plus the neighbour boost), then the newer, each
 * channel's first hit always among them (`bestKeepingHeads`), each with its `position` among all
 * the fused hits (1 = best; a head kept from below the others may be 57th) and every signal the
 * receipts show. Written to give what the
 * function gives, in the same floating-point steps: each channel's `1 / (60 + rank)` added in the
 * channels' order, similarity and coverage the best of 0 and the channels', a turn's boost
 * `neighbourWeight` × the better fused score of the turns at seq ± 1 of its session among the hits;
 * equal scores and times keep the order in which the channels first named the memories. With
 * `coverageWeighted`, a text hit counts by its coverage (`fuseRankings`' weight).
 */
export function fusedHitsSql(channels: readonly PlannedChannel[], neighbourWeight: number, limit: number, coverageWeighted = false): SQL[] {
  const lists = channels.flatMap(({ channel, hits }, order) =>
    hits
      ? [
          sql`SELECT ${sql.raw(String(order))} AS channel_order, ${channel}::text AS channel, h.id, h.session_id, h.turn_seq, h.created_at,
                     h.rank, h.similarity, h.coverage, h.via FROM ${hits} h`,
        ]
      : [],
  );
  const all =
    lists.length > 0
      ? sql.join(lists, sql` UNION ALL `)
      : sql`SELECT 0 AS channel_order, NULL::text AS channel, NULL::uuid AS id, NULL::uuid AS session_id, NULL::int AS turn_seq,
                   NULL::timestamptz AS created_at, NULL::int AS rank, NULL::float8 AS similarity, NULL::float8 AS coverage, NULL::text AS via WHERE false`;
  const boost =
    neighbourWeight > 0
      ? sql`CASE WHEN f.session_id IS NOT NULL AND f.turn_seq IS NOT NULL
                 THEN greatest(coalesce(prior_turn.fused, 0), coalesce(next_turn.fused, 0)) * ${neighbourWeight}::float8 ELSE 0::float8 END`
      : sql`0::float8`;
  const weight = coverageWeighted ? sql`CASE WHEN channel = 'text' THEN coalesce(coverage, 1::float8) ELSE 1::float8 END` : sql`1::float8`;
  return [
    sql`recall_hits AS (${all})`,
    sql`recall_fused AS MATERIALIZED (
      SELECT id, (array_agg(session_id))[1] AS session_id, (array_agg(turn_seq))[1] AS turn_seq, (array_agg(created_at))[1] AS created_at,
             sum(${weight} / (${sql.raw(String(RRF_K))} + rank) ORDER BY channel_order, rank) AS fused,
             greatest(0::float8, coalesce(max(similarity), 0)) AS similarity,
             greatest(0::float8, coalesce(max(coverage), 0)) AS coverage,
             min(rank) FILTER (WHERE channel = 'vector') AS vector_rank,
             min(rank) FILTER (WHERE channel = 'text') AS text_rank,
             json_agg(CASE WHEN via IS NULL THEN json_build_object('channel', channel, 'rank', rank)
                           ELSE json_build_object('channel', channel, 'rank', rank, 'via', via) END ORDER BY channel_order, rank) AS channels,
             min(channel_order * 1000000 + rank) AS seen
        FROM recall_hits GROUP BY id
    )`,
    sql`recall_turns AS (
      SELECT session_id, turn_seq, max(fused) AS fused FROM recall_fused
       WHERE session_id IS NOT NULL AND turn_seq IS NOT NULL GROUP BY session_id, turn_seq
    )`,
    sql`recall_heads AS (SELECT DISTINCT ON (channel_order) id FROM recall_hits ORDER BY channel_order, rank, id::text COLLATE "C")`,
    sql`recall_scored AS (
      SELECT s.*, row_number() OVER (PARTITION BY s.head ORDER BY s.position) AS place_among_kind FROM (
        SELECT s.*, row_number() OVER (ORDER BY s.score DESC, s.created_at DESC, s.seen) AS position FROM (
          SELECT f.*, ${boost} AS neighbour_boost, f.fused + ${boost} AS score, f.id IN (SELECT id FROM recall_heads) AS head
            FROM recall_fused f
            LEFT JOIN recall_turns prior_turn ON prior_turn.session_id = f.session_id AND prior_turn.turn_seq = f.turn_seq - 1
            LEFT JOIN recall_turns next_turn ON next_turn.session_id = f.session_id AND next_turn.turn_seq = f.turn_seq + 1
        ) s
      ) s
    )`,
    sql`recall_best AS MATERIALIZED (
      SELECT s.* FROM recall_scored s, (SELECT count(DISTINCT id) AS heads FROM recall_heads) h
       WHERE CASE WHEN h.heads * 2 > ${limit} THEN s.position <= ${limit} ELSE s.head OR s.place_among_kind <= ${limit} - h.heads END
       ORDER BY s.position
    )`,
  ];
}
