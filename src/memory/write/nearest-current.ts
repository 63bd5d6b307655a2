import { type SQL, sql } from "drizzle-orm";
import { type Queryable, queryRows } from "../../db/database.js";
import { toVectorLiteral } from "../../db/vector.js";
import type { Scope } from "./operations.js";

/** How many of the index's nearest are sorted exactly for the nearest one: its order is approximate (relaxed). */
const INDEX_CANDIDATES = 10;

/**
 * The settings of a vector search on the HNSW indexes, as recall uses them (`sql-hnsw.ts`): the
 * scan goes on past `ef_search` until it has found enough of this user's rows of these types
 * (without it a filtered scan stops at the graph's nearest 40 of everyone's and may find none), and
 * JIT is off (a filtered index scan's cost passes the JIT threshold; compiling costs more than the
 * lookup). Set for the rest of the caller's transaction (`set_config(…, true)`), once: the write
 * path's other statements are short lookups too.
 */
const INDEX_SETTINGS = sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '64', true), set_config('jit', 'off', true)`;
const configured = new WeakSet<object>();

/** What a duplicate check asks: the user's current memories of `types` with a vector of `model`. */
export interface NearestRequest {
  scope: Scope;
  types: readonly string[];
  vector: number[];
  model: string;
}

/**
 * The statement of {@link nearestCurrentMemory}: the distance is taken between `halfvec(d)` casts,
 * the expression the model's HNSW index (and a large user's own) is built on, so the planner can
 * walk the index the way recall does; where there is none (PGlite, an index still building,
 * `ANN_INDEX=off`) it is an exact scan of the user's rows, as before. The index's nearest few are
 * then sorted by exact distance.
 */
export function nearestCurrentSql(request: NearestRequest): SQL {
  const { scope, types, vector, model } = request;
  const cast = sql.raw(`halfvec(${vector.length})`);
  const distance = sql`embedding::${cast} <=> ${toVectorLiteral(vector)}::${cast}`;
  return sql`SELECT id, (1 - distance)::float8 AS similarity FROM (
      SELECT id, ${distance} AS distance FROM memories
       WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND type IN ${types} AND expired_at IS NULL
         AND embedding IS NOT NULL AND embedding_model = ${model}
       ORDER BY ${distance} LIMIT ${INDEX_CANDIDATES}
    ) nearest ORDER BY distance LIMIT 1`;
}

/**
 * The user's current memory of `types` nearest to `vector` (of `model`), with its cosine similarity,
 * inside the caller's transaction; undefined when the user has none with a vector of that model.
 *
 * @example
 * const nearest = await nearestCurrentMemory(tx, { scope, types: ["semantic"], vector, model: "use-lite-512" });
 * if (nearest && nearest.similarity > 0.95) // a duplicate
 */
export async function nearestCurrentMemory(
  tx: Queryable,
  request: NearestRequest,
): Promise<{ id: string; similarity: number } | undefined> {
  if (!configured.has(tx)) {
    await tx.execute(INDEX_SETTINGS);
    configured.add(tx);
  }
  const [nearest] = await queryRows<{ id: string; similarity: number }>(tx, nearestCurrentSql(request));
  return nearest ? { id: nearest.id, similarity: Number(nearest.similarity) } : undefined;
}
