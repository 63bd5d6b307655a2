import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { type Database, type DatabaseHandle, queryRows } from "../../db/database.js";

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
  const hash = createHash("sha256")
    .update(`${target.model}\u0000${target.dimensions}\u0000m=${HNSW_BUILD.m},ef_construction=${HNSW_BUILD.efConstruction}`)
    .digest("hex")
    .slice(0, 8);
  return `memories_ann_${slug}_${target.dimensions}_${hash}`;
}

export interface AnnBuildOptions {
  /**
   * `maintenance_work_mem` for the build (e.g. "512MB"). A graph that outgrows it is built on
   * disk, several times slower: 100K 512-d vectors took 133 s with Postgres' default 64MB and 47 s
   * with 256MB (the index is 158MB). It is a session setting, so `db` must then be a connection of
   * its own (a pool of one); on a shared pool it may reach another connection than the build's.
   */
  memory?: string;
}

/**
 * Creates the HNSW index for one model's vectors (cosine, `halfvec(d)` expression, partial on the
 * model, {@link HNSW_BUILD}) unless a valid one exists; `CONCURRENTLY`, so appends and the
 * pipeline go on while it builds. A build that failed half-way leaves an invalid index, which
 * `IF NOT EXISTS` would keep forever: it is dropped and built again. Once it is valid, the
 * model's indexes under other names (older build parameters, another dimension) are dropped:
 * recall never uses them and every insert would keep paying for them. Real Postgres only (PGlite
 * has its own in-memory path and one connection). Returns whether a valid index exists afterwards.
 */
export async function ensureAnnIndex(db: Database, target: AnnTarget, options: AnnBuildOptions = {}): Promise<boolean> {
  if (!Number.isInteger(target.dimensions) || target.dimensions < 1 || target.dimensions > HNSW_MAX_DIMENSIONS) return false;
  const name = annIndexName(target);
  const state = await indexState(db, name);
  if (state === "invalid") await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
  if (state !== "valid") {
    if (options.memory) await db.execute(sql`SELECT set_config('maintenance_work_mem', ${options.memory}, false)`);
    try {
      await db.execute(
        sql.raw(
          `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON memories USING hnsw ((embedding::halfvec(${target.dimensions})) halfvec_cosine_ops) WITH (m = ${HNSW_BUILD.m}, ef_construction = ${HNSW_BUILD.efConstruction}) WHERE embedding_model = ${quoteLiteral(target.model)}`,
        ),
      );
    } finally {
      if (options.memory) await db.execute(sql`RESET maintenance_work_mem`);
    }
    if ((await indexState(db, name)) !== "valid") return false;
  }
  for (const stale of await staleIndexes(db, target.model, name)) await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${stale}"`));
  return true;
}

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

const quoteLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

async function indexState(db: Database, name: string): Promise<"missing" | "invalid" | "valid"> {
  const rows = await queryRows<{ valid: boolean }>(
    db,
    sql`SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${name}`,
  );
  const row = rows[0];
  return row === undefined ? "missing" : row.valid ? "valid" : "invalid";
}

/**
 * The configured model's index. While the model has no vectors yet (a new deployment, a new
 * model) the build takes milliseconds and is finished before the service starts serving: a build
 * still running in the background could deadlock with whatever the first users do to the table
 * (`ANALYZE` takes the same lock, and a concurrent build waits for every older transaction). Over
 * existing vectors it builds in the background: until it is valid, recall takes the
 * binary-quantised path (correct, slower at scale); once it is, the indexed one. The build runs on
 * `build.connection` when given (a pool of one, closed afterwards), so `build.memory` reaches it.
 */
export async function startAnnIndex(
  db: Database,
  target: AnnTarget,
  log: (message: string, fields?: Record<string, unknown>) => void,
  build: { connection?: Pick<DatabaseHandle, "db" | "close">; memory?: string } = {},
): Promise<AnnIndex> {
  let ready = false;
  const started = Date.now();
  const building = ensureAnnIndex(build.connection?.db ?? db, target, build.memory ? { memory: build.memory } : {})
    .finally(() => build.connection?.close())
    .then(
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
  if (noVectorsYet) await building;
  return { dimensionsFor: (model) => (ready && model === target.model ? target.dimensions : undefined) };
}
