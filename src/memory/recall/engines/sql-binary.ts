import { type SQL, sql } from "drizzle-orm";
import { queryRowsWithSettings } from "../../../db/pool-statements.js";
import { toVectorLiteral } from "../../../db/vector.js";
import { m } from "../../visibility.js";
import type { RankedHit } from "../fusion.js";
import type { QueryVector, RecallIndex, RecallRequest } from "./recall-index.js";
import { asRankedHits, NO_HITS, planOf } from "./sql-ranking.js";
import { TURN_SEQ } from "./turn-seq.js";

/** Binary-quantised candidates re-ranked per vector result kept, and at least this many. */
const BQ_OVERSAMPLING = 4;
const BQ_MIN_CANDIDATES = 400;

/** How many Hamming candidates a vector ranking of `pool` re-ranks by cosine (here and in the resident copy). */
export const binaryCandidates = (pool: number) => Math.max(pool * BQ_OVERSAMPLING, BQ_MIN_CANDIDATES);

/**
 * The vector channel without an index: candidates by Hamming distance over the binary-quantised
 * vectors (`embedding_bits`, cheap), re-ranked by exact cosine over `halfvec`. With fewer rows than
 * the candidates this is an exact search. Answers every request, so it closes the vector channel:
 * with no query vector (the embedder failed) the ranking is empty.
 */
export const sqlBinaryIndex: RecallIndex = {
  name: "sql-binary",
  async rank(request) {
    const vector = await request.vector;
    if (!vector) return { hits: [] };
    const hits = await queryRowsWithSettings<RankedHit>(request.db, { jit: "off" }, asRankedHits(nearestByBits(request, vector)));
    return { hits };
  },
  plan(request) {
    return planOf(request, request.vector ? nearestByBits(request, request.vector) : NO_HITS, { jit: "off" });
  },
};

/** The `pool` nearest visible memories by Hamming candidates re-ranked exactly, as a ranking (`created_at` a timestamp). */
function nearestByBits(request: Pick<RecallRequest, "visible" | "pool">, vector: QueryVector): SQL {
  const literal = toVectorLiteral(vector.values);
  return sql`SELECT id, session_id, turn_seq, created_at, (row_number() OVER (ORDER BY distance, id))::int AS rank, (1 - distance)::float8 AS similarity FROM (
      SELECT c.id, c.session_id, c.turn_seq, c.created_at, c.embedding <=> ${literal}::halfvec AS distance FROM (
        SELECT ${m.id}, ${m.sessionId}, ${TURN_SEQ} AS turn_seq, ${m.createdAt}, ${m.embedding}
          FROM memories m
         WHERE ${request.visible} AND ${m.embeddingBits} IS NOT NULL AND ${m.embeddingModel} = ${vector.model}
         ORDER BY ${m.embeddingBits} <~> binary_quantize(${literal}::halfvec)::varbit
         LIMIT ${binaryCandidates(request.pool)}
      ) c
      ORDER BY distance, id
      LIMIT ${request.pool}
    ) nearest`;
}
