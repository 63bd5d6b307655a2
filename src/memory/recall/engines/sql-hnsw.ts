import { type SQL, sql } from "drizzle-orm";
import { queryRowsWithSettings } from "../../../db/pool-statements.js";
import { toVectorLiteral } from "../../../db/vector.js";
import { m } from "../../visibility.js";
import type { RankedHit } from "../fusion.js";
import type { QueryVector, RecallIndex, RecallRequest } from "./recall-index.js";
import { asRankedHits, planOf } from "./sql-ranking.js";
import { TURN_SEQ } from "./turn-seq.js";

/**
 * `hnsw.ef_search` for a vector ranking of `pool` results: the pool itself, at least 64 and at
 * most pgvector's 1,000. The iterative scan goes on past ef_search until the pool is full, so more
 * buys only the pool's tail; docs/benchmarks.md has the measurement behind 1× the pool.
 */
const annEfSearch = (pool: number) => Math.min(1000, Math.max(64, pool));

/** The scan's settings for a ranking of `pool`: JIT off (see below), an iterative scan of the graph. */
const hnswSettings = (pool: number) => ({
  jit: "off",
  "hnsw.iterative_scan": "relaxed_order",
  "hnsw.ef_search": String(annEfSearch(pool)),
});

/**
 * The vector channel from the HNSW index of the query's model (a real Postgres, once the index is
 * valid: `QueryVector.annDimensions`). An iterative scan keeps going until it has found `pool` of
 * the user's visible memories; its relaxed order is sorted exactly by the statement. JIT off: the
 * planner's cost of a filtered index scan passes the JIT threshold, and compiling never pays for a
 * lookup this short.
 */
export const sqlHnswIndex: RecallIndex = {
  name: "sql-hnsw",
  async rank(request) {
    const vector = await request.vector;
    if (!vector?.annDimensions) return undefined;
    const hits = await queryRowsWithSettings<RankedHit>(
      request.db,
      hnswSettings(request.pool),
      asRankedHits(nearestByIndex(request, vector)),
    );
    return { hits };
  },
  plan(request) {
    if (!request.vector?.annDimensions) return undefined;
    return planOf(request, nearestByIndex(request, request.vector), hnswSettings(request.pool));
  },
};

/** The `pool` nearest visible memories through the index, as a ranking (`created_at` a timestamp). */
function nearestByIndex(request: Pick<RecallRequest, "visible" | "pool">, vector: QueryVector): SQL {
  const literal = toVectorLiteral(vector.values);
  const dimensions = sql.raw(String(vector.annDimensions));
  return sql`SELECT id, session_id, turn_seq, created_at, (row_number() OVER (ORDER BY distance, id))::int AS rank, (1 - distance)::float8 AS similarity FROM (
      SELECT ${m.id}, ${m.sessionId}, ${TURN_SEQ} AS turn_seq, ${m.createdAt}, ${m.embedding}::halfvec(${dimensions}) <=> ${literal}::halfvec(${dimensions}) AS distance
        FROM memories m
       WHERE ${request.visible} AND ${m.embeddingModel} = ${vector.model}
       ORDER BY ${m.embedding}::halfvec(${dimensions}) <=> ${literal}::halfvec(${dimensions})
       LIMIT ${request.pool}
    ) nearest`;
}
