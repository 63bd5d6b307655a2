import { type SQL, sql } from "drizzle-orm";
import { toVectorLiteral } from "../../../db/vector.js";
import { m } from "../../visibility.js";
import type { QueryVector } from "./recall-index.js";
import { TURN_SEQ } from "./turn-seq.js";

/** The newest user turns compared with a query's vector: what a user says of themselves now is said among the last few thousand. */
const MAX_TURNS_READ = 5_000;

/** The newest `MAX_TURNS_READ` user turns `model` embedded (`visible` filters the row `m`), with their vector and text. */
function newestUserTurnsSql(visible: SQL, model: string): SQL {
  return sql`SELECT ${m.id}, ${m.sessionId}, ${TURN_SEQ} AS turn_seq, ${m.createdAt}, ${m.embedding}, ${m.content}
          FROM memories m
         WHERE ${visible} AND ${m.subtype} = 'turn' AND ${m.metadata} ->> 'role' = 'user'
           AND ${m.embedding} IS NOT NULL AND ${m.embeddingModel} = ${model}
         ORDER BY ${m.validAt} DESC
         LIMIT ${MAX_TURNS_READ}`;
}

/**
 * The user's turns whose text matches `pattern` (a case-insensitive POSIX regular expression; any
 * turn without one), nearest to `vector` first, among the newest `MAX_TURNS_READ` user turns the vector's model
 * embedded (`visible` filters the row `m`): `id`, `session_id`, `turn_seq`, `created_at` and
 * `distance`, at most `limit`, by distance then id. Read exactly, on either database: the kind
 * channel's ranking and the asker's own statements.
 */
export function nearestUserTurnsSql(visible: SQL, vector: QueryVector, pattern: string | undefined, limit: number): SQL {
  return sql`SELECT t.id, t.session_id, t.turn_seq, t.created_at, t.embedding <=> ${toVectorLiteral(vector.values)}::halfvec AS distance FROM (
        ${newestUserTurnsSql(visible, vector.model)}
      ) t
      ${pattern === undefined ? sql`` : sql`WHERE t.content ~* ${pattern}`}
      ORDER BY distance, t.id
      LIMIT ${limit}`;
}

/**
 * The same turns as `nearestUserTurnsSql` (without a pattern), nearest first to two vectors of one
 * query at once (a question and the question said as a statement, embedded by one model): `distance`
 * is the mean of the two cosine distances, each taken with the turn and the vector centred on the
 * mean of those turns. Every turn of one user shares a direction (their way of speaking, the
 * embedder's own bias, an opening such as "I am …" when most of their turns open so): centred, a
 * turn is near when it is near in what sets it apart from the user's other turns, and what all of
 * them share ranks none above another. The two forms miss different statements; their mean ranks
 * a statement near either. Read exactly, in one pass; it costs more per turn than one vector's
 * distance (docs/benchmarks.md).
 */
export function nearestUserTurnsToBothSql(visible: SQL, statement: QueryVector, question: QueryVector, limit: number): SQL {
  const centred = (vector: QueryVector) => sql`(${toVectorLiteral(vector.values)}::vector - c.mean)`;
  // The mean is materialised: inlined, a planner that expects one turn re-aggregates it for every turn.
  // A turn equal to the mean (a user's only turn) has no direction, and its cosine is NaN: it counts as orthogonal.
  return sql`WITH t AS MATERIALIZED (
        SELECT n.id, n.session_id, n.turn_seq, n.created_at, n.embedding::vector AS e FROM (${newestUserTurnsSql(visible, statement.model)}) n
      ), c AS MATERIALIZED (SELECT avg(e) AS mean FROM t)
      SELECT t.id, t.session_id, t.turn_seq, t.created_at,
             coalesce(nullif((((t.e - c.mean) <=> ${centred(statement)}) + ((t.e - c.mean) <=> ${centred(question)})) / 2, 'NaN'::float8), 1) AS distance
        FROM t CROSS JOIN c
       ORDER BY distance, t.id
       LIMIT ${limit}`;
}
