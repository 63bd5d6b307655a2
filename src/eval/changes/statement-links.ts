import { sql } from "drizzle-orm";
import type { Runtime } from "../../../functions/node-runtime.js";
import { questionAsStatement } from "../../context/question-statement.js";
import { queryRows } from "../../db/database.js";
import { toVectorLiteral } from "../../db/vector.js";
import { m, visibleAt } from "../../memory/visibility.js";
import type { HistoryCase } from "./case-set.js";
import { type CaseResult, firstTurnId, laterTurnId } from "./changes-run.js";

/**
 * How near the service's embedder puts a case's two statements: to the question, and to each
 * other. The fused ranking reads the user's turns by the question's vector, the asker's own
 * statements by the question said as a statement (`questionAsStatement`, the question itself when
 * it has no such form), and a change is read among the later turns nearest the statement it
 * follows: a first statement the embedder ranks 100th by both, or a change below the
 * later-statement floor (CONTEXT_LATER_SIMILARITY) of its first, is out of the window's reach at a
 * small budget, whatever reads the turns.
 */
export interface StatementLinks {
  id: string;
  /** Places of the two statements among the user's turns by cosine to the question (1 = nearest). */
  byQuestion: { first: number; later: number };
  /** The same, by cosine to the question said as a statement. */
  byStatementForm: { first: number; later: number };
  /** How many user turns were ranked. */
  userTurns: number;
  /** Cosine of the later statement to the first. */
  firstToLater: number;
}

interface RankedTurn {
  turn_id: string | null;
  by_question: number;
  by_statement: number;
  first_to_later: number | null;
}

/**
 * The links of one imported case: its question (and its statement form) embedded as queries,
 * ranked against the user's current turns in the database, embedded by the same model.
 */
export async function statementLinks(runtime: Runtime, historyCase: HistoryCase, userId: string): Promise<StatementLinks> {
  const { embedder } = runtime.providers;
  const [question, statement] = await embedder.embed(
    [historyCase.question, questionAsStatement(historyCase.question) ?? historyCase.question],
    {
      priority: "query",
    },
  );
  if (!question || !statement) throw new Error(`no vector for the question of ${historyCase.id}`);
  const visible = visibleAt(m, { appId: "default", userId }, { now: new Date() });
  const rows = await queryRows<RankedTurn>(
    runtime.database.db,
    sql`WITH turns AS MATERIALIZED (
          SELECT ${m.id} AS id, ${m.embedding} AS embedding,
                 (SELECT e.data ->> 'turn_id' FROM memory_sources s JOIN session_events e ON e.id = s.event_id
                   WHERE s.memory_id = ${m.id} ORDER BY s.seq LIMIT 1) AS turn_id
            FROM memories m
           WHERE ${visible} AND ${m.subtype} = 'turn' AND ${m.metadata} ->> 'role' = 'user'
             AND ${m.embedding} IS NOT NULL AND ${m.embeddingModel} = ${embedder.model}
        )
        SELECT t.turn_id,
               (row_number() OVER (ORDER BY t.embedding <=> ${toVectorLiteral(question)}::halfvec, t.id))::int AS by_question,
               (row_number() OVER (ORDER BY t.embedding <=> ${toVectorLiteral(statement)}::halfvec, t.id))::int AS by_statement,
               (SELECT max(1 - (f.embedding <=> l.embedding))::float8 FROM turns f, turns l
                 WHERE f.turn_id = ${firstTurnId(historyCase)} AND l.turn_id = ${laterTurnId(historyCase)}) AS first_to_later
          FROM turns t`,
  );
  if (rows.length === 0) {
    throw new Error(
      `${historyCase.id}: no user turn of ${userId} is embedded by ${embedder.model} (links need the embedder the import used)`,
    );
  }
  const rowOf = (turnId: string) => {
    const found = rows.filter((candidate) => candidate.turn_id === turnId);
    if (found.length !== 1) throw new Error(`${historyCase.id}: ${found.length} embedded user turns of ${userId} are ${turnId}, not one`);
    return found[0] as RankedTurn;
  };
  const first = rowOf(firstTurnId(historyCase));
  const later = rowOf(laterTurnId(historyCase));
  return {
    id: historyCase.id,
    byQuestion: { first: first.by_question, later: later.by_question },
    byStatementForm: { first: first.by_statement, later: later.by_statement },
    userTurns: rows.length,
    firstToLater: Number(first.first_to_later ?? Number.NaN),
  };
}

/**
 * How many of the question's nearest user turns count as "found by the question" in `linksLine`
 * and `reachLine`: about what the asker's own statements and the later-statement reading look
 * through at the budgets asked (3 to 6 statements each, of the 10 nearest turns read).
 */
export const NEAR_PLACES = 10;

/**
 * One line over a set's links: in how many cases the first statement, and the later one, are
 * among the `NEAR_PLACES` user turns nearest the question and nearest its statement form, and in
 * how many the later statement reaches `floor` (CONTEXT_LATER_SIMILARITY) of the first.
 */
export function linksLine(links: readonly StatementLinks[], floor: number): string {
  const near = (pick: (found: StatementLinks) => number) => links.filter((found) => pick(found) <= NEAR_PLACES).length;
  return [
    `links of ${links.length} changes: among the ${NEAR_PLACES} user turns nearest the question, the first statement in ${near((found) => found.byQuestion.first)}`,
    `the later one in ${near((found) => found.byQuestion.later)}`,
    `nearest its statement form, ${near((found) => found.byStatementForm.first)} and ${near((found) => found.byStatementForm.later)}`,
    `the later one reaches ${floor} of the first in ${links.filter((found) => found.firstToLater >= floor).length}`,
  ].join("; ");
}

/**
 * Where the windows that miss a change's newest statement at `budget` lost it, one line: within
 * reach (the later statement among the `NEAR_PLACES` user turns nearest the question or its
 * statement form: the reading of turns lost it), through the first (the first statement among them
 * and the later one reaching `floor` of it: the later-statement reading lost it), or out of the
 * embedder's reach (the later statement not among them, and the first not among them or the later
 * one below `floor` of it). A set's misses sorted without reading its cases one by one.
 */
export function reachLine(results: readonly CaseResult[], links: readonly StatementLinks[], floor: number, budget: number): string {
  const linksOf = new Map(links.map((found) => [found.id, found]));
  const missed = results.filter(
    (result) => result.kind === "case" && result.windows.some((window) => window.budget === budget && !window.newestHeld),
  );
  const near = (places: StatementLinks["byQuestion"][], pick: "first" | "later") => places.some((place) => place[pick] <= NEAR_PLACES);
  const counts = { reach: 0, first: 0, out: 0 };
  for (const result of missed) {
    const found = linksOf.get(result.id);
    if (!found) throw new Error(`no links for case ${result.id}`);
    const places = [found.byQuestion, found.byStatementForm];
    if (near(places, "later")) counts.reach++;
    else if (near(places, "first") && found.firstToLater >= floor) counts.first++;
    else counts.out++;
  }
  return [
    `of ${missed.length} windows missing the newest statement at ${budget} tokens: ${counts.reach} with it among the ${NEAR_PLACES} user turns nearest the question or its statement form`,
    `${counts.first} through the first statement (among them, the later one reaching ${floor} of it)`,
    `${counts.out} out of the embedder's reach`,
  ].join(", ");
}
