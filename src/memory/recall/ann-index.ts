import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { sha256Hex } from "../../util/hash.js";

/** pgvector indexes `halfvec` up to this many dimensions. */
const HNSW_MAX_DIMENSIONS = 4000;

/**
 * The graph's build parameters. pgvector's defaults (16, 64) reached recall@10 0.89-0.93 against
 * an exact scan on 100K clustered 512-d vectors whatever `ef_search` was (the neighbours a search
 * misses are missing from the graph itself); `ef_construction = 200` reached 0.99 for about twice
 * the build time. Raising `m` to 32 did less (0.96-0.99) for a larger index and slower inserts.
 * Part of the index name, so a deployment built with other parameters gets this index built
 * beside its old one, which is dropped once this one is valid.
 */
export const HNSW_BUILD = { m: 16, efConstruction: 200 } as const;

/** Which embedding model has a usable approximate-nearest-neighbour index, and its dimension. */
export interface AnnIndex {
  /** The dimension to cast to for an indexed search of this model's vectors; undefined while there is no valid index. */
  dimensionsFor(model: string): number | undefined;
  /** Drops what the indexes hold about an erased user (a per-user index's definition names them). */
  forgetUser?(scope: { appId: string; userId: string }): Promise<void>;
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
  const hash = sha256Hex(
    `${target.model}\u0000${target.dimensions}\u0000m=${HNSW_BUILD.m},ef_construction=${HNSW_BUILD.efConstruction}`,
  ).slice(0, 8);
  return `memories_ann_${slug}_${target.dimensions}_${hash}`;
}

export interface AnnBuildOptions {
  /**
   * `maintenance_work_mem` for the build (e.g. "512MB"). A graph that outgrows it is built on
   * disk, several times slower: 100K 512-d vectors (a 158MB index) built about three times faster
   * with 256MB than with Postgres' default 64MB. It is a session setting, so `db` must then be a connection of
   * its own (a pool of one); on a shared pool it may reach another connection than the build's.
   */
  memory?: string;
}

/**
 * Creates the HNSW index for one model's vectors (cosine, `halfvec(d)` expression, partial on the
 * model, {@link HNSW_BUILD}) unless a valid one exists; `CONCURRENTLY`, so appends and the
 * pipeline go on while it builds. Once it is valid, the model's indexes under other names (older
 * build parameters, another dimension) are dropped: recall never uses them and every insert would
 * keep paying for them. Real Postgres only (PGlite has its own in-memory path and one
 * connection). Returns whether a valid index exists afterwards.
 */
export async function ensureAnnIndex(db: Database, target: AnnTarget, options: AnnBuildOptions = {}): Promise<boolean> {
  const name = annIndexName(target);
  if (!(await ensureHnswIndex(db, { name, dimensions: target.dimensions, predicate: modelPredicate(target.model) }, options))) return false;
  for (const stale of await staleIndexes(db, target.model, name)) await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${stale}"`));
  return true;
}

/** An HNSW index over the vectors `predicate` selects (one model's, cast to its dimension). */
export interface HnswIndexSpec {
  name: string;
  dimensions: number;
  /** SQL over `memories`' columns, literals quoted with {@link quoteLiteral}. */
  predicate: string;
}

/** Whether pgvector can index vectors of this many dimensions (`halfvec`). */
export const indexableDimensions = (dimensions: number) =>
  Number.isInteger(dimensions) && dimensions >= 1 && dimensions <= HNSW_MAX_DIMENSIONS;

/** Builds `spec` concurrently unless a valid index of that name exists (see {@link ensureIndex}). */
export async function ensureHnswIndex(db: Database, spec: HnswIndexSpec, options: AnnBuildOptions = {}): Promise<boolean> {
  if (!indexableDimensions(spec.dimensions)) return false;
  return ensureIndex(
    db,
    spec.name,
    `hnsw ((embedding::halfvec(${spec.dimensions})) halfvec_cosine_ops) WITH (m = ${HNSW_BUILD.m}, ef_construction = ${HNSW_BUILD.efConstruction}) WHERE ${spec.predicate}`,
    options,
  );
}

/**
 * Builds `name` on memories `USING ${method}` concurrently unless a valid index of that name
 * exists. A build that died half-way (a crash, a dropped connection) leaves an invalid index,
 * which `IF NOT EXISTS` would keep forever: it is dropped and built again. One still being built
 * (by another replica starting at the same time) is left alone: dropping it would kill that
 * build. Returns whether the index is valid afterwards.
 */
export async function ensureIndex(db: Database, name: string, method: string, options: AnnBuildOptions = {}): Promise<boolean> {
  const state = await indexState(db, name);
  if (state === "valid") return true;
  if (state === "building") return false;
  if (state === "invalid") await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
  if (options.memory) await db.execute(sql`SELECT set_config('maintenance_work_mem', ${options.memory}, false)`);
  try {
    await db.execute(sql.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON memories USING ${method}`));
  } finally {
    if (options.memory) await db.execute(sql`RESET maintenance_work_mem`);
  }
  return (await indexState(db, name)) === "valid";
}

const modelPredicate = (model: string) => `embedding_model = ${quoteLiteral(model)}`;

/** The model's vector indexes other than `current`, found by the predicate every one of them has. */
async function staleIndexes(db: Database, model: string, current: string): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = 'memories'::regclass AND starts_with(c.relname, 'memories_ann_') AND c.relname <> ${current}
           AND pg_get_expr(i.indpred, i.indrelid) = ${`(embedding_model = ${quoteLiteral(model)}::text)`}`,
  );
  return rows.map((row) => row.name);
}

export const quoteLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** Whether the index exists and is usable, or is being built right now (its build reports progress). */
export async function indexState(db: Database, name: string): Promise<"missing" | "invalid" | "building" | "valid"> {
  const rows = await queryRows<{ valid: boolean; building: boolean }>(
    db,
    sql`SELECT i.indisvalid AS valid, EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = c.oid) AS building
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${name}`,
  );
  const row = rows[0];
  if (row === undefined) return "missing";
  return row.valid ? "valid" : row.building ? "building" : "invalid";
}
