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
  /**
   * On a server: other sessions of the database whose snapshot was older than the pass when it
   * stopped waiting for them (`OLDER_SNAPSHOTS_WAIT_MS`). A rewrite copies the rows such a snapshot
   * can still see, the erased ones included, so with any left the erased bytes stay in the files
   * until the next pass.
   */
  olderSnapshots: number;
}

/** How long a pass on a server waits for sessions with a snapshot older than the erasure to end. */
export const OLDER_SNAPSHOTS_WAIT_MS = 10_000;
const OLDER_SNAPSHOTS_POLL_MS = 100;

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
  // A rewrite keeps the deleted rows an older snapshot can still see (on a server, other sessions of
  // this database): those end first, or the pass says how many were left when the wait ended.
  const olderSnapshots = kind === "pglite" ? 0 : await waitForOlderSnapshots(db, OLDER_SNAPSHOTS_WAIT_MS);
  const pass: ScrubPass = { rewritten: [], vacuumed: [], busy: [], checkpointed: false, olderSnapshots };
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

/**
 * Waits until no other session of this database holds a snapshot taken before now (one that may
 * still see the rows an erasure that committed before it deleted), at most `boundMs`; returns how
 * many still do. A transaction id assigned now marks the moment: a session whose oldest snapshot
 * (`backend_xmin`) is older than it might see the deleted rows.
 */
async function waitForOlderSnapshots(db: Database, boundMs: number): Promise<number> {
  const [mark] = await queryRows<{ xid: string }>(db, sql`SELECT pg_current_xact_id()::text AS xid`);
  if (!mark) throw new Error("pg_current_xact_id() returned no row");
  const deadline = Date.now() + boundMs;
  for (;;) {
    const [row] = await queryRows<{ older: number }>(
      db,
      sql`SELECT count(*)::int AS older FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL
             AND age(backend_xmin) > age(${mark.xid}::xid8::xid)`,
    );
    const older = Number(row?.older ?? 0);
    if (older === 0 || Date.now() >= deadline) return older;
    await new Promise((resolve) => setTimeout(resolve, OLDER_SNAPSHOTS_POLL_MS));
  }
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

/** How often a scrub may start, and the clock it is timed by (real time, not the memory's clock). */
export interface ScrubSchedule {
  /** A pass starts at least this long after the previous one started; 0: as soon as the previous one ended. */
  minIntervalMs: number;
  now?: () => number;
}

/**
 * Runs a scrub (`scrubRelations`) after erasures that deleted rows (the route asks only then: an
 * erasure of a user who never existed rewrites nothing), one pass at a time and at most one pass
 * per `minIntervalMs`: erasures that arrive while a pass runs, or before the interval since the
 * last one has passed, share the next pass, which starts when both allow. So a burst of erasures
 * (or a caller repeating one) costs one pass per interval, and no erased row stays in the files
 * longer than the interval and a pass. `flush()` starts a waiting pass now (at shutdown).
 *
 * @example
 * const scrub = new ErasureScrub(() => scrubRelations(db, "pglite", ERASED_RELATIONS, { rewriteMaxBytes: 16 << 20 }), { minIntervalMs: 60_000 });
 * background.run(c, "scrub the erased user's relations", () => scrub.afterErasure());
 */
export class ErasureScrub {
  private running: Promise<ScrubPass> | undefined;
  /** The next pass, promised to the erasures waiting for it, and what starts it before its time. */
  private waiting: { pass: Promise<ScrubPass>; startNow: () => void } | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;

  constructor(
    private readonly pass: () => Promise<ScrubPass>,
    private readonly schedule: ScrubSchedule = { minIntervalMs: 0 },
  ) {
    this.now = schedule.now ?? Date.now;
  }

  /** The pass that covers an erasure that just committed: the one waiting to start, or a new one. */
  afterErasure(): Promise<ScrubPass> {
    if (this.waiting) return this.waiting.pass;
    const due = this.lastStart + this.schedule.minIntervalMs;
    if (!this.running && this.now() >= due) return this.start();
    let startNow: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      startNow = resolve;
    });
    const pass = (this.running ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const wait = this.lastStart + this.schedule.minIntervalMs - this.now();
        if (wait > 0) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([released, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
          clearTimeout(timer);
        }
        this.waiting = undefined;
        return this.start();
      });
    this.waiting = { pass, startNow };
    return pass;
  }

  /** Starts the waiting pass without waiting out the interval (it still follows a running one); resolves when it is done. */
  async flush(): Promise<void> {
    const waiting = this.waiting;
    if (!waiting) return;
    waiting.startNow();
    await waiting.pass.catch(() => undefined);
  }

  private start(): Promise<ScrubPass> {
    this.lastStart = this.now();
    const running = this.pass().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }
}
