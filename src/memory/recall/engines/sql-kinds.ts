import { type SQL, sql } from "drizzle-orm";
import { queryRowsWithSettings } from "../../../db/pool-statements.js";
import type { RankedHit } from "../fusion.js";
import { type StatementKind, statementPattern } from "../statement-kinds.js";
import { nearestUserTurnsSql } from "./nearest-user-turns.js";
import type { QueryVector, RecallChannel, RecallIndex, RecallRequest } from "./recall-index.js";
import { asRankedHits, NO_HITS, planOf } from "./sql-ranking.js";

/**
 * The user's own statements of the kinds the question asks about (`request.kinds`: a taste, a
 * habit, a goal — `statement-kinds.ts`), nearest to the query first: "What music am I into?"
 * finds "My favourite band is Radiohead", which holds none of its words and which the vector
 * channel ranks behind every turn about music. Empty when the question asks about no kind or the
 * query has no vector. Reads the newest user turns (`nearestUserTurnsSql`): a taste said years and
 * thousands of turns ago is the vector channel's to find. As part of a composed plan too (`plan`).
 */
export const sqlKindsIndex: RecallIndex = {
  name: "sql-kinds",
  async rank(request) {
    const kinds = request.kinds ?? [];
    const vector = await request.vector;
    if (kinds.length === 0 || !vector) return { hits: [] };
    const hits = await queryRowsWithSettings<RankedHit>(request.db, { jit: "off" }, asRankedHits(nearestOfKinds(request, vector, kinds)));
    return { hits };
  },
  plan(request) {
    const kinds = request.kinds ?? [];
    const ranking = kinds.length > 0 && request.vector ? nearestOfKinds(request, request.vector, kinds) : NO_HITS;
    return planOf(request, ranking, { jit: "off" });
  },
};

/** The `pool` user statements of `kinds` nearest to the query among the newest turns, as a ranking (`created_at` a timestamp). */
function nearestOfKinds(request: Pick<RecallRequest, "visible" | "pool">, vector: QueryVector, kinds: readonly StatementKind[]): SQL {
  const pattern = kinds.map(statementPattern).join("|");
  return sql`SELECT id, session_id, turn_seq, created_at, (row_number() OVER (ORDER BY distance, id))::int AS rank, (1 - distance)::float8 AS similarity FROM (
      ${nearestUserTurnsSql(request.visible, vector, pattern, request.pool)}
    ) nearest`;
}

/** The kind channel, fused beside vector and text when a question asks about a kind. */
export const kindChannel: RecallChannel = { name: "kind", engines: [sqlKindsIndex] };
