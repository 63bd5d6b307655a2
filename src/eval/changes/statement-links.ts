import { sql } from "drizzle-orm";
import type { Runtime } from "../../../functions/node-runtime.js";
import { queryRows } from "../../db/database.js";
import { toVectorLiteral } from "../../db/vector.js";
import type { HistoryCase } from "./case-set.js";
import { firstTurnId, laterTurnId } from "./changes-run.js";

/**
 * How near the service's embedder puts a case's two statements: to the question, and to each
 * other. A window finds the user's own statements among their turns nearest the question, and a
 * change among the later turns nearest the statement it follows: a first statement the embedder
 * ranks 100th, or a change below the later-statement floor (CONTEXT_LATER_SIMILARITY) of its
 * first, is out of the window's reach at a small budget, whatever reads the turns.
 */
export interface StatementLinks {
  id: string;
  /** Places of the two statements among the user's own turns by cosine to the question (1 = nearest). */
  firstPlace: number;
  laterPlace: number;
  /** How many user turns were ranked. */
  userTurns: number;
  /** Cosine of the later statement to the first. */
  firstToLater: number;
}

interface RankedTurn {
  turn_id: string | null;
  place: number;
  similarity: number;
  first_to_later: number | null;
}

/** The links of one imported case: its question embedded as a query, ranked against the user's turns in the database. */
export async function statementLinks(runtime: Runtime, historyCase: HistoryCase, userId: string): Promise<StatementLinks> {
  const { embedder } = runtime.providers;
  const [vector] = await embedder.embed([historyCase.question], { priority: "query" });
  if (!vector) throw new Error(`no vector for the question of ${historyCase.id}`);
  const rows = await queryRows<RankedTurn>(
    runtime.database.db,
    sql`WITH turns AS MATERIALIZED (
          SELECT m.id, m.embedding, (SELECT e.data ->> 'turn_id' FROM memory_sources s JOIN session_events e ON e.id = s.event_id
                                      WHERE s.memory_id = m.id ORDER BY s.seq LIMIT 1) AS turn_id
            FROM memories m
           WHERE m.user_id = ${userId} AND m.subtype = 'turn' AND m.metadata ->> 'role' = 'user' AND m.expired_at IS NULL
             AND m.embedding IS NOT NULL AND m.embedding_model = ${embedder.model}
        )
        SELECT t.turn_id, (row_number() OVER (ORDER BY t.embedding <=> ${toVectorLiteral(vector)}::halfvec, t.id))::int AS place,
               (1 - (t.embedding <=> ${toVectorLiteral(vector)}::halfvec))::float8 AS similarity,
               (SELECT (1 - (f.embedding <=> l.embedding))::float8 FROM turns f, turns l
                 WHERE f.turn_id = ${firstTurnId(historyCase)} AND l.turn_id = ${laterTurnId(historyCase)}) AS first_to_later
          FROM turns t`,
  );
  const placeOf = (turnId: string) => {
    const row = rows.find((candidate) => candidate.turn_id === turnId);
    if (!row) throw new Error(`${historyCase.id}: turn ${turnId} is not an embedded user turn of ${userId}`);
    return row.place;
  };
  return {
    id: historyCase.id,
    firstPlace: placeOf(firstTurnId(historyCase)),
    laterPlace: placeOf(laterTurnId(historyCase)),
    userTurns: rows.length,
    firstToLater: Number(rows[0]?.first_to_later ?? Number.NaN),
  };
}

/** How many of the question's nearest user turns count as "found by the question" in `linksLine`. */
export const NEAR_PLACES = 10;

/**
 * One line over a set's links: in how many cases the question has the first statement, and the
 * later one, among its `NEAR_PLACES` nearest user turns, and in how many the later statement
 * reaches `floor` (CONTEXT_LATER_SIMILARITY) of the first.
 */
export function linksLine(links: readonly StatementLinks[], floor: number): string {
  const count = (test: (found: StatementLinks) => boolean) => links.filter(test).length;
  return [
    `links of ${links.length} changes: the question has the first statement among its ${NEAR_PLACES} nearest user turns in ${count((found) => found.firstPlace <= NEAR_PLACES)}`,
    `the later one in ${count((found) => found.laterPlace <= NEAR_PLACES)}`,
    `the later one reaches ${floor} of the first in ${count((found) => found.firstToLater >= floor)}`,
  ].join(", ");
}
