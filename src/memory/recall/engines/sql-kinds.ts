import { sql } from "drizzle-orm";
import { queryRowsWithSettings } from "../../../db/pool-statements.js";
import { toVectorLiteral } from "../../../db/vector.js";
import { m } from "../../visibility.js";
import type { RankedHit } from "../fusion.js";
import { statementPattern } from "../statement-kinds.js";
import type { RecallChannel, RecallIndex } from "./recall-index.js";
import { TURN_SEQ } from "./turn-seq.js";

/** The newest user turns a kind ranking reads: a taste said years and thousands of turns ago is read by the vector channel. */
const MAX_TURNS_READ = 5_000;

/**
 * The user's own statements of the kinds the question asks about (`request.kinds`: a taste, a
 * habit, a goal — `statement-kinds.ts`), nearest to the query first: "What music am I into?"
 * finds "My favourite band is Radiohead", which holds none of its words and which the vector
 * channel ranks behind every turn about music. Empty when the question asks about no kind or the
 * query has no vector. Reads the newest `MAX_TURNS_READ` user turns, exactly, on either database.
 */
export const sqlKindsIndex: RecallIndex = {
  name: "sql-kinds",
  async rank(request) {
    const kinds = request.kinds ?? [];
    const vector = await request.vector;
    if (kinds.length === 0 || !vector) return { hits: [] };
    const literal = toVectorLiteral(vector.values);
    const pattern = kinds.map(statementPattern).join("|");
    const hits = await queryRowsWithSettings<RankedHit>(
      request.db,
      { jit: "off" },
      sql`SELECT id, session_id, turn_seq, created_at::text AS created_at, (row_number() OVER (ORDER BY distance))::int AS rank, (1 - distance)::float8 AS similarity FROM (
          SELECT t.id, t.session_id, t.turn_seq, t.created_at, t.embedding <=> ${literal}::halfvec AS distance FROM (
            SELECT ${m.id}, ${m.sessionId}, ${TURN_SEQ} AS turn_seq, ${m.createdAt}, ${m.embedding}, ${m.content}
              FROM memories m
             WHERE ${request.visible} AND ${m.subtype} = 'turn' AND ${m.metadata} ->> 'role' = 'user'
               AND ${m.embedding} IS NOT NULL AND ${m.embeddingModel} = ${vector.model}
             ORDER BY ${m.validAt} DESC
             LIMIT ${MAX_TURNS_READ}
          ) t
          WHERE t.content ~* ${pattern}
          ORDER BY distance
          LIMIT ${request.pool}
        ) nearest`,
    );
    return { hits };
  },
};

/** The kind channel, fused beside vector and text when a question asks about a kind. */
export const kindChannel: RecallChannel = { name: "kind", engines: [sqlKindsIndex] };
