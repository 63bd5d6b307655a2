import { type SQL, sql } from "drizzle-orm";
import { toVectorLiteral } from "../../../db/vector.js";
import { m } from "../../visibility.js";
import type { QueryVector } from "./recall-index.js";
import { TURN_SEQ } from "./turn-seq.js";

/** The newest user turns compared with a query's vector: what a user says of themselves now is said among the last few thousand. */
const MAX_TURNS_READ = 5_000;

/**
 * The user's turns whose text matches `pattern` (a case-insensitive POSIX regular expression; any
 * turn without one), nearest to `vector` first, among the newest `MAX_TURNS_READ` user turns the vector's model
 * embedded (`visible` filters the row `m`): `id`, `session_id`, `turn_seq`, `created_at` and
 * `distance`, at most `limit`, by distance then id. Read exactly, on either database: the kind
 * channel's ranking and the asker's own statements.
 */
export function nearestUserTurnsSql(visible: SQL, vector: QueryVector, pattern: string | undefined, limit: number): SQL {
  return sql`SELECT t.id, t.session_id, t.turn_seq, t.created_at, t.embedding <=> ${toVectorLiteral(vector.values)}::halfvec AS distance FROM (
        SELECT ${m.id}, ${m.sessionId}, ${TURN_SEQ} AS turn_seq, ${m.createdAt}, ${m.embedding}, ${m.content}
          FROM memories m
         WHERE ${visible} AND ${m.subtype} = 'turn' AND ${m.metadata} ->> 'role' = 'user'
           AND ${m.embedding} IS NOT NULL AND ${m.embeddingModel} = ${vector.model}
         ORDER BY ${m.validAt} DESC
         LIMIT ${MAX_TURNS_READ}
      ) t
      ${pattern === undefined ? sql`` : sql`WHERE t.content ~* ${pattern}`}
      ORDER BY distance, t.id
      LIMIT ${limit}`;
}
