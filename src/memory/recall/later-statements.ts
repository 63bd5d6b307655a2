import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import type { SourceRef } from "../provenance.js";
import { memoriesAs, visibleAt } from "../visibility.js";
import { type StatementReading, statesSomething } from "./speaker-statements.js";

/** Something the user said after a statement, about the same subject: its nearest later turn by meaning. */
export interface LaterStatement {
  /** The user's turn (an episodic memory). */
  memoryId: string;
  content: string;
  /** When it was said. */
  at: Date;
  /** Cosine of the turn to the statement (or to the turns the statement came from). */
  similarity: number;
  /** The names it gives someone the statement named (a person or pet of the user's graph); empty when none. */
  names: string[];
  sources: SourceRef[];
}

/**
 * The newest user turns after a statement that are compared with it: a user of years of turns
 * compares the last few thousand, which is where what changed since is said.
 */
const MAX_TURNS_SCANNED = 2_000;

/**
 * How many of a statement's nearest later turns are read for each one kept: the nearest are often
 * the user's questions and requests on the subject ("can you give examples?"), which state
 * nothing, and are passed over for the nearest that states something.
 */
const READ_PER_KEPT = 4;

/** A statement to look past: a fact or a user's turn, and when it was last said. */
export interface StatementAnchor {
  id: string;
  after: Date;
}

/** How many later turns are kept per statement, and the least cosine that makes one "about the same subject". */
export interface LaterStatementOptions {
  perStatement: number;
  minSimilarity: number;
  /** Later turns naming someone the statement named come first (CONTEXT_LATER_NAMES). */
  byName: boolean;
  /** The moment the window is read at: later turns said after it do not exist yet. */
  now: Date;
  /** A question may be what the user said later, when it states something of them (CONTEXT_QUESTION_STATEMENTS). */
  inQuestions: boolean;
}

/**
 * For each statement, the user's own turns said after it was last confirmed, on another occasion
 * (in a session other than the ones it was said in), on its subject: near it by meaning (nearest to
 * the statement's vector, or, for a fact, which says in a line what a turn said at length, to the
 * vectors of the turns it came from), those that name someone the statement named first (the same
 * person or pet of the user's graph). A fact written in March is not all that is known in May when
 * the user spoke of the same thing since ("we got the keys to the flat in Porto last week"); the
 * reader can weigh the two, whatever the extractor made of the second. No phrase decides it, only
 * time, occasion, names and meaning: of the later turns whose cosine reaches `minSimilarity`,
 * naming turns first and each kind by cosine, the first that states something (not only a question
 * or a request), of the user or of anyone or anything, is its later statement. A name lifts
 * no turn past the floor: a friend is named in talk of anything. The rest of the conversation a statement
 * was said in goes on with it, and is not what was said since. Best first, at most `perStatement`
 * each; statements with none are absent from the map.
 *
 * @example
 * const later = await laterStatements(db, { appId: "default", userId: "ana" }, [{ id: factId, after: stated }], { perStatement: 1, minSimilarity: 0.45, byName: true, now });
 */
export async function laterStatements(
  db: Pick<Database, "execute">,
  scope: { appId: string; userId: string },
  statements: readonly StatementAnchor[],
  options: LaterStatementOptions,
): Promise<Map<string, LaterStatement[]>> {
  if (statements.length === 0 || options.perStatement <= 0) return new Map();
  const anchors = JSON.stringify(statements.map((statement) => ({ id: statement.id, after: statement.after.toISOString() })));
  const rows = await queryRows<LaterStatementRow>(
    db,
    laterStatementsSql(
      scope,
      sql`SELECT x.id, x.after FROM jsonb_to_recordset(${anchors}::jsonb) AS x(id uuid, after timestamptz)`,
      options,
    ),
  );
  return laterStatementsOf(rows, options.perStatement, options);
}

/** A later statement as `laterStatementsSql` returns it, with the statement it is later than. */
export interface LaterStatementRow {
  statement_id: string;
  id: string;
  content: string;
  valid_at: string | Date;
  similarity: number;
  /** The names the turn gives entities the statement named (null when it names none of them). */
  names: string[] | null;
  sources: SourceRef[] | null;
}

/**
 * The statement behind `laterStatements`, for the statements `statements` names (a relation of
 * `id` and `after`): each statement's best later turns, `statement_id` beside each.
 */
export function laterStatementsSql(scope: { appId: string; userId: string }, statements: SQL, options: LaterStatementOptions): SQL {
  const u = memoriesAs("u");
  // The anchors once, not once per later turn weighed (a CTE named once would be inlined).
  return sql`WITH st AS (${statements}),
        named AS MATERIALIZED (
          ${options.byName ? namedEntitiesSql(scope) : sql`SELECT NULL::uuid AS statement_id, NULL::uuid AS entity_id WHERE false`}
        ),
        anchor AS MATERIALIZED (
          SELECT st.id AS statement_id, a.embedding, a.embedding_model FROM st JOIN memories a ON a.id = st.id
           WHERE a.embedding IS NOT NULL
          UNION ALL
          SELECT st.id, t.embedding, t.embedding_model FROM st
            JOIN memory_sources ss ON ss.memory_id = st.id
            JOIN memory_sources ts ON ts.event_id = ss.event_id AND ts.memory_id <> st.id
            JOIN memories t ON t.id = ts.memory_id AND t.subtype = 'turn' AND t.embedding IS NOT NULL
        )
        SELECT st.id AS statement_id, later.* FROM st
        CROSS JOIN LATERAL (
          SELECT c.id, c.content, c.valid_at, c.similarity, c.names,
                 (SELECT json_agg(json_build_object('session_id', s.session_id, 'event_id', s.event_id, 'seq', s.seq) ORDER BY s.seq)
                    FROM memory_sources s WHERE s.memory_id = c.id) AS sources
            FROM (
              SELECT w.*, row_number() OVER (PARTITION BY w.names IS NULL ORDER BY w.similarity DESC, w.valid_at DESC) AS place
                FROM (
                  -- The names are read only for the turns near enough by meaning.
                  SELECT v.*, ${options.byName ? namesOfSql : sql`NULL::text[]`} AS names
                    FROM (
                      SELECT n.id, n.content, n.valid_at,
                             (SELECT max(1 - (n.embedding <=> a.embedding))::float8 FROM anchor a
                               WHERE a.statement_id = st.id AND a.embedding_model = n.embedding_model) AS similarity
                        FROM (
                          SELECT ${u.id} AS id, ${u.content} AS content, ${u.validAt} AS valid_at, ${u.embedding} AS embedding,
                                 ${u.embeddingModel} AS embedding_model
                            FROM memories u
                           WHERE ${visibleAt(u, scope, { now: options.now })} AND ${u.subtype} = 'turn' AND ${u.metadata} ->> 'role' = 'user'
                             AND ${u.validAt} > st.after AND ${u.embedding} IS NOT NULL
                             AND NOT EXISTS (SELECT 1 FROM memory_sources said WHERE said.memory_id = st.id AND said.session_id = ${u.sessionId})
                           ORDER BY ${u.validAt} DESC
                           LIMIT ${MAX_TURNS_SCANNED}
                        ) n
                    ) v
                   WHERE v.similarity >= ${options.minSimilarity}
                ) w
            ) c
           -- Of each kind (naming the statement's entities or not), the best few: a run of questions naming them hides no statement by meaning.
           WHERE c.place <= ${options.perStatement * READ_PER_KEPT}
        ) later`;
}

/** The names a later turn `v` gives the people and pets its statement `st` named (`named`); NULL when none. */
const namesOfSql = sql`(SELECT array_agg(DISTINCT em.surface ORDER BY em.surface) FROM memory_sources vs
                            JOIN entity_mentions em ON em.event_id = vs.event_id AND NOT em.said
                            JOIN named ON named.statement_id = st.id AND named.entity_id = em.entity_id
                           WHERE vs.memory_id = v.id)`;

/**
 * For each statement of `st`, the people and pets it named: current entities of the user's graph,
 * named in an event it came from. What the user tells of later is news of someone; the graph's
 * places and organisations take in nationalities, topics and acronyms ("Italian", "AI"), named in
 * talk of anything. Not the conversation's participants either (an entity with turns of its own):
 * a turn naming them is on no subject of theirs. The graph as it is now: an entity that ever spoke in
 * one of the user's conversations is a speaker.
 */
function namedEntitiesSql(scope: { appId: string; userId: string }): SQL {
  return sql`SELECT DISTINCT st.id AS statement_id, em.entity_id FROM st
            JOIN memory_sources stated ON stated.memory_id = st.id
            JOIN entity_mentions em ON em.event_id = stated.event_id AND NOT em.said
            JOIN entities e ON e.id = em.entity_id AND e.expired_at IS NULL AND e.app_id = ${scope.appId} AND e.user_id = ${scope.userId}
                 AND e.kind IN ('person', 'pet') AND NOT e.self
           WHERE NOT EXISTS (SELECT 1 FROM entity_mentions spoke WHERE spoke.entity_id = em.entity_id AND spoke.said)`;
}

/**
 * Rows of `laterStatementsSql` by statement, best first (those naming someone the statement named,
 * then the rest, each by cosine): the first `perStatement` of each that state something
 * (`statesSomething`: not only questions and requests), of the user or of anyone or anything else
 * ("her new job starts on Monday", "Biscuit chewed through another lead").
 */
export function laterStatementsOf(
  rows: readonly LaterStatementRow[],
  perStatement: number,
  reading: StatementReading,
): Map<string, LaterStatement[]> {
  const found = new Map<string, LaterStatement[]>();
  const naming = (row: LaterStatementRow) => (row.names && row.names.length > 0 ? 1 : 0);
  const best = [...rows].sort((a, b) => naming(b) - naming(a) || Number(b.similarity) - Number(a.similarity));
  for (const row of best) {
    const list = found.get(row.statement_id) ?? [];
    if (list.length >= perStatement || !statesSomething(row.content, reading)) continue;
    list.push({
      memoryId: row.id,
      content: row.content,
      at: new Date(row.valid_at),
      similarity: Number(row.similarity),
      names: row.names ?? [],
      sources: row.sources ?? [],
    });
    found.set(row.statement_id, list);
  }
  return found;
}
