import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";

/** pgvector indexes `halfvec` up to this many dimensions. */
const HNSW_MAX_DIMENSIONS = 4000;

/** Which embedding model has a usable approximate-nearest-neighbour index, and its dimension. */
export interface AnnIndex {
  /** The dimension to cast to for an indexed search of this model's vectors; undefined while there is no valid index. */
  dimensionsFor(model: string): number | undefined;
}

export interface AnnTarget {
  model: string;
  dimensions: number;
}

/**
 * The index's name: per model and dimension, since `embedding` holds vectors of every model ever
 * configured (untyped `halfvec`, which HNSW cannot index) and one index serves one model's slice,
 * cast to its fixed dimension. A hash keeps it unique under Postgres's 63-byte identifier limit.
 */
export function annIndexName(target: AnnTarget): string {
  const slug = target.model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .slice(0, 30);
  const hash = createHash("sha256").update(`${target.model}\u0000${target.dimensions}`).digest("hex").slice(0, 8);
  return `memories_ann_${slug}_${target.dimensions}_${hash}`;
}

/**
 * Creates the HNSW index for one model's vectors (cosine, `halfvec(d)` expression, partial on the
 * model) unless a valid one exists; `CONCURRENTLY`, so appends and the pipeline go on while it
 * builds. A build that failed half-way leaves an invalid index, which `IF NOT EXISTS` would keep
 * forever: it is dropped and built again. Real Postgres only (PGlite has its own in-memory path
 * and one connection). Returns whether a valid index exists afterwards.
 */
export async function ensureAnnIndex(db: Database, target: AnnTarget): Promise<boolean> {
  if (!Number.isInteger(target.dimensions) || target.dimensions < 1 || target.dimensions > HNSW_MAX_DIMENSIONS) return false;
  const name = annIndexName(target);
  const state = await indexState(db, name);
  if (state === "valid") return true;
  if (state === "invalid") await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
  const model = target.model.replaceAll("'", "''");
  await db.execute(
    sql.raw(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON memories USING hnsw ((embedding::halfvec(${target.dimensions})) halfvec_cosine_ops) WHERE embedding_model = '${model}'`,
    ),
  );
  return (await indexState(db, name)) === "valid";
}

async function indexState(db: Database, name: string): Promise<"missing" | "invalid" | "valid"> {
  const rows = await queryRows<{ valid: boolean }>(
    db,
    sql`SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${name}`,
  );
  const row = rows[0];
  return row === undefined ? "missing" : row.valid ? "valid" : "invalid";
}

/** A query vector as recall takes it: with the index's dimension when its model has a valid index. */
export function queryVector(deps: { embedder: { model: string }; ann?: AnnIndex }, values: number[]) {
  const annDimensions = deps.ann?.dimensionsFor(deps.embedder.model);
  return { values, model: deps.embedder.model, ...(annDimensions ? { annDimensions } : {}) };
}

/**
 * The configured model's index. While the model has no vectors yet (a new deployment, a new
 * model) the build takes milliseconds and is finished before the service starts serving: a build
 * still running in the background could deadlock with whatever the first users do to the table
 * (`ANALYZE` takes the same lock, and a concurrent build waits for every older transaction). Over
 * existing vectors it builds in the background: until it is valid, recall takes the
 * binary-quantised path (correct, slower at scale); once it is, the indexed one.
 */
export async function startAnnIndex(
  db: Database,
  target: AnnTarget,
  log: (message: string, fields?: Record<string, unknown>) => void,
): Promise<AnnIndex> {
  let ready = false;
  const started = Date.now();
  const build = ensureAnnIndex(db, target).then(
    (valid) => {
      ready = valid;
      if (valid) log("vector index ready", { index: annIndexName(target), ms: Date.now() - started });
      else log("no vector index for this embedding model", { model: target.model, dimensions: target.dimensions });
    },
    (error: unknown) => log("vector index build failed; recall stays on the binary-quantised path", { error: String(error) }),
  );
  // Unreachable database: the build in the background logs its own failure; start-up goes on.
  const noVectorsYet = await queryRows(db, sql`SELECT 1 FROM memories WHERE embedding_model = ${target.model} LIMIT 1`).then(
    (rows) => rows.length === 0,
    () => false,
  );
  if (noVectorsYet) await build;
  return { dimensionsFor: (model) => (ready && model === target.model ? target.dimensions : undefined) };
}
