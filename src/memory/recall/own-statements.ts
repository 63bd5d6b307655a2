import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import type { RetentionClock } from "../lifecycle/retention.js";
import { m, visibleAt } from "../visibility.js";
import { nearestUserTurnsSql, nearestUserTurnsToBothSql } from "./engines/nearest-user-turns.js";
import type { QueryVector } from "./engines/recall-index.js";
import { RECALLED_COLUMNS, type RecalledMemory, type RecalledRow, toRecalled } from "./recalled-rows.js";
import { type StatementReading, statesSomething } from "./speaker-statements.js";
import { supersededSql } from "./superseded.js";

/**
 * How many of the user's turns nearest the query are read for each one kept: many only ask ("can I
 * freeze my sourdough starter?") or request ("Using the notes above, write …"), which states
 * nothing of the user. Told apart in code (`statesSomething`), not by a pattern in the
 * statement: a pattern of the verb forms a subjectless statement opens on costs the database more
 * than reading these turns.
 */
const READ_PER_KEPT = 10;

/**
 * What the asker's own statements are found by: the question said as a statement (or the question
 * itself when it has no such form), and, when given, the question's own vector besides
 * (CONTEXT_ASKER_CENTRED), each then taken centred on the user's turns (`nearestUserTurnsToBothSql`).
 */
export interface OwnStatementVectors {
  statement: QueryVector;
  question?: QueryVector | undefined;
}

/**
 * The user's turns nearest to the query's vectors, nearest first, as recalled rows
 * (`similarity` their cosine to the statement form, or with the question too their mean centred
 * cosine to both): the candidates of `ownStatementsOf`, read exactly among the user's newest turns
 * (`nearestUserTurnsSql`, `nearestUserTurnsToBothSql`). On its own (`nearestOwnStatements`) or as
 * a relation of a composed plan.
 */
export function ownStatementCandidatesSql(
  scope: { appId: string; userId: string },
  now: Date,
  vectors: OwnStatementVectors,
  count: number,
): SQL {
  const visible = visibleAt(m, scope, { now });
  const { statement, question } = vectors;
  const nearest =
    question && question.model === statement.model
      ? nearestUserTurnsToBothSql(visible, statement, question, count * READ_PER_KEPT)
      : nearestUserTurnsSql(visible, statement, undefined, count * READ_PER_KEPT);
  return sql`SELECT r.*, ${supersededSql(now)} AS superseded FROM (
      SELECT t.position, t.similarity, 0::float8 AS score, 0::float8 AS coverage, NULL::int AS vector_rank, NULL::int AS text_rank, ${RECALLED_COLUMNS}
        FROM (
          SELECT n.id, (row_number() OVER (ORDER BY n.distance, n.id))::int AS position, (1 - n.distance)::float8 AS similarity FROM (
            ${nearest}
          ) n
        ) t
        JOIN memories m ON ${m.id} = t.id
    ) r`;
}

/**
 * The first `count` of the candidates, in their order, that state something (`statesSomething`):
 * of the user ("I keep a dinghy at the club"), of someone ("her", "him"), or of anything in a
 * plain statement ("The dinghy sits on a mooring at the club"): said by the user near the question,
 * one with no I or my is theirs as much.
 */
export function ownStatementsOf(candidates: readonly RecalledMemory[], count: number, reading: StatementReading): RecalledMemory[] {
  const kept: RecalledMemory[] = [];
  // Read in order until enough are kept: each reading may run the tagger.
  for (const memory of candidates) {
    if (kept.length >= count) break;
    if (statesSomething(memory.content, reading)) kept.push(memory);
  }
  return kept;
}

/**
 * The user's own statements nearest to the query by meaning, nearest first: `count` of the
 * user's turns that state something (`ownStatementsOf`), among the newest few thousand.
 * A question about how the asker stands now ("what do I drive these days?") is answered by what
 * the user said of themselves, which often shares none of its words and which the fused ranking
 * puts behind every turn that does ("can you compare car insurance quotes?"). Read exactly, on
 * either database, with the query's vectors; none without the statement form's. A composed plan reads the same
 * candidates in its statement (`composedRecall`).
 *
 * @example
 * const own = await nearestOwnStatements(db, { appId: "default", userId: "ana" }, { statement, question }, 3, { lambda, now }, reading);
 */
export async function nearestOwnStatements(
  db: Database,
  scope: { appId: string; userId: string },
  vectors: { statement: QueryVector | undefined; question?: QueryVector | undefined },
  count: number,
  clock: RetentionClock,
  reading: StatementReading,
): Promise<RecalledMemory[]> {
  const { statement, question } = vectors;
  if (count <= 0 || !statement) return [];
  const rows = await queryRows<RecalledRow & { position: number }>(
    db,
    ownStatementCandidatesSql(scope, clock.now, { statement, question }, count),
  );
  const candidates = rows.sort((a, b) => a.position - b.position).map((row) => toRecalled(row, clock));
  return ownStatementsOf(candidates, count, reading);
}
