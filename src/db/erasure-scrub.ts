import { type SQLWrapper, sql } from "drizzle-orm";
import type { DatabaseKind } from "../vocabulary/database-kind.js";
import { type Database, queryRows } from "./database.js";

/** What one scrub did to the relations an erasure deleted from. */
export interface ScrubPass {
  /** Rewritten into new files (`VACUUM FULL`): no byte of a deleted row is left in their heap, TOAST or index files. */
  rewritten: string[];
  /** Vacuumed only (larger than the rewrite limit): deleted rows' bytes may stay in freed page space until new rows reuse it. */
  vacuumed: string[];
  /**
   * Not rewritten: held by another session's lock when asked (`SKIP_LOCKED`; the next scrub tries
   * again), or, for `pg_statistic`, a role that may not vacuum the catalog (only its owner may).
   */
  busy: string[];
  /** Whether a checkpoint wrote the scrubbed pages to the files (and, embedded, removed the WAL segments before it). */
  checkpointed: boolean;
}

export interface ScrubOptions {
  /** Tables (with their indexes and TOAST) up to this many bytes are rewritten; larger ones are vacuumed. 0: vacuum only. */
  rewriteMaxBytes: number;
}

/**
 * Makes deleted rows leave the disk. A `DELETE` only marks rows dead, and `VACUUM` frees their
 * space without overwriting it: measured in PGlite, every heap and index page that held a deleted
 * row still held its bytes after `VACUUM` and a checkpoint, until new rows happened to reuse the
 * space. So a relation up to `rewriteMaxBytes` is rewritten (`VACUUM FULL`: new files, the old ones
 * unlinked, under an exclusive lock for as long as the copy takes, which is why the size is
 * bounded); a larger one is vacuumed. `SKIP_LOCKED` makes neither wait behind other sessions (a
 * waiting exclusive lock would queue every request behind it).
 *
 * Then a checkpoint writes the pages to the relation files. Embedded, the WAL is switched first,
 * so the checkpoint removes every segment written before it (the connection runs with
 * `wal_recycle = off`, so removed segments are unlinked, not renamed and reused with their old
 * records inside). A server keeps its WAL as its own settings say (the docs state what remains),
 * and a role without the right to checkpoint leaves it to the next scheduled checkpoint.
 *
 * @example
 * const pass = await scrubRelations(db, "pglite", ["sessions", "session_events"], { rewriteMaxBytes: 16 << 20 });
 * // pass.rewritten → ["session_events", "sessions"], pass.checkpointed → true
 */
export async function scrubRelations(
  db: Database,
  kind: DatabaseKind,
  relations: readonly string[],
  options: ScrubOptions,
): Promise<ScrubPass> {
  const sizes = await queryRows<{ name: string; bytes: string; filenode: string }>(
    db,
    sql`SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes, pg_relation_filenode(c.oid)::text AS filenode
          FROM pg_class c
         WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname IN ${[...relations]}
         ORDER BY pg_total_relation_size(c.oid)`,
  );
  const pass: ScrubPass = { rewritten: [], vacuumed: [], busy: [], checkpointed: false };
  for (const relation of sizes) {
    if (Number(relation.bytes) <= options.rewriteMaxBytes) {
      ((await rewrite(db, relation.name, sql.identifier(relation.name), relation.filenode)) ? pass.rewritten : pass.busy).push(
        relation.name,
      );
    } else {
      await db.execute(sql`VACUUM (SKIP_LOCKED) ${sql.identifier(relation.name)}`);
      pass.vacuumed.push(relation.name);
    }
  }
  // The planner's statistics sample column values (most common values, histogram bounds) into
  // pg_statistic: analyzed again without the deleted rows, and that catalog rewritten in turn.
  // ANALYZE waits rather than skips: its lock conflicts only with another vacuum or analyze (an
  // autovacuum's, whose sample may predate the erasure), never with reads and writes.
  for (const relation of sizes) await db.execute(sql`ANALYZE ${sql.identifier(relation.name)}`);
  const statistics = await filenode(db, "pg_catalog.pg_statistic");
  const catalog = sql.raw("pg_catalog.pg_statistic");
  (statistics && (await rewrite(db, "pg_catalog.pg_statistic", catalog, statistics)) ? pass.rewritten : pass.busy).push("pg_statistic");
  pass.checkpointed = await checkpoint(db, kind);
  return pass;
}

/** Tries a skipped rewrite again a few times: the locks it skips (a pipeline step's, a reader's) are held for moments. */
const REWRITE_ATTEMPTS = 5;
const REWRITE_RETRY_PAUSE_MS = 200;

/** `VACUUM (FULL, SKIP_LOCKED)` until the relation has a new file (a skipped relation keeps its file); false if it never did. */
async function rewrite(db: Database, name: string, relation: SQLWrapper, before: string): Promise<boolean> {
  for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, REWRITE_RETRY_PAUSE_MS * attempt));
    await db.execute(sql`VACUUM (FULL, SKIP_LOCKED) ${relation}`);
    if ((await filenode(db, name)) !== before) return true;
  }
  return false;
}

async function filenode(db: Database, relation: string): Promise<string | undefined> {
  const [row] = await queryRows<{ filenode: string }>(db, sql`SELECT pg_relation_filenode(${relation}::regclass)::text AS filenode`);
  return row?.filenode;
}

async function checkpoint(db: Database, kind: DatabaseKind): Promise<boolean> {
  if (kind === "pglite") {
    await db.execute(sql`SELECT pg_switch_wal()`);
    await db.execute(sql`CHECKPOINT`);
    return true;
  }
  try {
    await db.execute(sql`CHECKPOINT`);
    return true;
  } catch (error) {
    // insufficient_privilege: CHECKPOINT needs a superuser or pg_checkpoint (PostgreSQL 15+).
    if ((error as { code?: unknown }).code === "42501") return false;
    throw error;
  }
}

/**
 * Runs a scrub (`scrubRelations`) after erasures, one pass at a time: erasures that arrive while a
 * pass runs share the next one, so a burst of them costs two passes, not one each.
 *
 * @example
 * const scrub = new ErasureScrub(() => scrubRelations(db, "pglite", ERASED_RELATIONS, { rewriteMaxBytes: 16 << 20 }));
 * background.run(c, "scrub the erased user's relations", () => scrub.afterErasure());
 */
export class ErasureScrub {
  private running: Promise<ScrubPass> | undefined;
  private next: Promise<ScrubPass> | undefined;

  constructor(private readonly pass: () => Promise<ScrubPass>) {}

  /** The pass that starts after the erasure committed: the next one if a pass is already running. */
  afterErasure(): Promise<ScrubPass> {
    if (!this.running) {
      this.running = this.pass().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.afterErasure();
      });
    return this.next;
  }
}
