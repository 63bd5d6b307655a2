import { type SQL, sql } from "drizzle-orm";
import type { PlanRequest, RankingPlan } from "./recall-index.js";

/** A vector engine's ranking (`id`, `session_id`, `turn_seq`, `created_at`, `rank`, `similarity`) as `RankedHit`s for fusion in the process: `created_at` as exact text, best first. */
export const asRankedHits = (ranking: SQL): SQL =>
  sql`SELECT id, session_id, turn_seq, created_at::text AS created_at, rank, similarity FROM (${ranking}) h ORDER BY rank`;

/** A vector ranking that finds nothing (no query vector), in the columns of one that does. */
export const NO_HITS = sql`SELECT NULL::uuid AS id, NULL::uuid AS session_id, NULL::int AS turn_seq, NULL::timestamptz AS created_at,
                                  NULL::int AS rank, NULL::float8 AS similarity WHERE false`;

/** A vector engine's ranking (the columns of `asRankedHits`' input) as its part of a composed plan. */
export function planOf(request: PlanRequest, ranking: SQL, settings: Record<string, string>): RankingPlan {
  const hits = request.relation("hits");
  return {
    relations: [
      sql`${hits} AS MATERIALIZED (
        SELECT id, session_id, turn_seq, created_at, rank, similarity, NULL::float8 AS coverage, NULL::text AS via FROM (${ranking}) h
      )`,
    ],
    hits,
    settings,
  };
}
