import { sql } from "drizzle-orm";
import { registerGauge } from "../telemetry/metrics.js";
import type { Logger } from "../util/logger.js";
import { type Database, queryRows } from "./database.js";
import { repeatEvery } from "./repeating-pass.js";

/**
 * Postgres stops taking writes when the oldest unfrozen transaction id of any database on the
 * server is about 2^31 − 3M transactions old. This many past it, a relation is frozen: Postgres's
 * own `vacuum_freeze_table_age` (its autovacuum forces the same at 200M).
 */
export const FREEZE_AGE = 150_000_000;

/** The templates initdb made. The embedded service never connects to them, and nothing can vacuum them while it runs. */
const TEMPLATES = ["template0", "template1"] as const;

export interface XidAges {
  /** Transactions since this database's oldest unfrozen transaction id (`age(datfrozenxid)`). */
  database: number;
  /** The same for the oldest database of the cluster: what Postgres's wraparound limit follows. */
  oldest: number;
  /** Which database that is. */
  oldestName: string;
}

export interface FreezePass {
  /** Template databases dropped because they held the wraparound limit back. */
  dropped: string[];
  /** Relations frozen, oldest first. */
  frozen: string[];
  before: XidAges;
  after: XidAges;
}

/**
 * How far this database, and the oldest one on its server, are from transaction id wraparound.
 *
 * @example
 * const { oldest } = await readXidAges(db); // 1_234_567
 */
export async function readXidAges(db: Database): Promise<XidAges> {
  const rows = await queryRows<{ name: string; age: number; current: boolean }>(
    db,
    sql`SELECT datname AS name, age(datfrozenxid)::float8 AS age, datname = current_database() AS current FROM pg_database ORDER BY age DESC`,
  );
  const oldest = rows[0];
  return {
    database: Number(rows.find((row) => row.current)?.age ?? 0),
    oldest: Number(oldest?.age ?? 0),
    oldestName: oldest?.name ?? "",
  };
}

/**
 * Keeps the embedded database (PGlite) away from transaction id wraparound, which PGlite (no
 * autovacuum) otherwise reaches after 2^31 write transactions (~250 days at 100 a second), then
 * refusing every write. Measured inside PGlite: the limit follows the oldest database's
 * `datfrozenxid`, and `template0`/`template1` age with every transaction though nothing writes to
 * them; PGlite opens one database, so they can be frozen only by closing ours and opening each, and
 * a freeze of ours alone leaves the limit where it was. So once a template is the oldest database
 * and past `freezeAge`, it is dropped (the embedded service creates no databases, the only use of
 * templates). Then every relation of ours past `freezeAge` (system catalogs included: the
 * database's horizon is its oldest relation's) is frozen, one `VACUUM (FREEZE)` each, oldest first,
 * so the one connection is held a relation at a time; Postgres then moves the limit itself.
 *
 * @example
 * const pass = await freezeWhereDue(db); // { dropped: [], frozen: [], … } until the first is due
 */
export async function freezeWhereDue(db: Database, freezeAge = FREEZE_AGE): Promise<FreezePass> {
  const before = await readXidAges(db);
  const dropped: string[] = [];
  // A server's templates are its autovacuum's to freeze (and other databases' to be created from).
  const [server] = await queryRows<{ embedded: boolean }>(db, sql`SELECT version() LIKE '%PGlite%' AS embedded`);
  for (const template of server?.embedded ? TEMPLATES : []) {
    const [row] = await queryRows<{ age: number }>(
      db,
      sql`SELECT age(datfrozenxid)::float8 AS age FROM pg_database WHERE datname = ${template} AND datname <> current_database()`,
    );
    if (row === undefined || Number(row.age) <= freezeAge) continue;
    await db.execute(sql.raw(`ALTER DATABASE ${template} IS_TEMPLATE false`));
    await db.execute(sql.raw(`DROP DATABASE ${template}`));
    dropped.push(template);
  }
  const due = await queryRows<{ name: string }>(
    db,
    // A table's TOAST relation is vacuumed with it, so its age counts as the table's.
    sql`SELECT r.name FROM (
          SELECT format('%I.%I', n.nspname, c.relname) AS name, greatest(age(c.relfrozenxid), coalesce(age(t.relfrozenxid), 0)) AS age
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_class t ON t.oid = c.reltoastrelid
           WHERE c.relkind IN ('r', 'm') AND c.relpersistence <> 't'
        ) r WHERE r.age > ${freezeAge} ORDER BY r.age DESC`,
  );
  const frozen: string[] = [];
  for (const { name } of due) {
    await db.execute(sql.raw(`VACUUM (FREEZE) ${name}`));
    frozen.push(name);
  }
  return { dropped, frozen, before, after: await readXidAges(db) };
}

/**
 * Runs `freezeWhereDue` every `intervalMs`, one pass at a time; `stop` ends the schedule once the
 * pass in flight is done. A pass that freezes or drops anything is logged with the ages before and
 * after; a failed pass is logged and the next one tries again.
 */
export function scheduleFreeze(
  db: Database,
  options: { intervalMs: number; logger: Pick<Logger, "info" | "warn">; freezeAge?: number },
): { stop(): Promise<void> } {
  return repeatEvery(
    options.intervalMs,
    async () => {
      const started = performance.now();
      const pass = await freezeWhereDue(db, options.freezeAge);
      if (pass.dropped.length > 0 || pass.frozen.length > 0)
        options.logger.info("embedded database frozen", {
          dropped: pass.dropped,
          frozen: pass.frozen.length,
          oldest_xid_age_before: pass.before.oldest,
          oldest_xid_age_after: pass.after.oldest,
          ms: Math.round(performance.now() - started),
        });
    },
    (error) => options.logger.warn("freezing the embedded database failed; the next pass tries again", { error }),
  );
}

/**
 * `mnemo.database.xid_age` at each scrape: transactions since the oldest unfrozen transaction id of
 * this database (`database="current"`) and of the oldest on its server (`database="oldest"`, what
 * wraparound follows). Returns what stops it.
 *
 * @example
 * const stop = registerXidAgeGauge(db);
 */
export function registerXidAgeGauge(db: Database): () => void {
  return registerGauge(
    {
      name: "mnemo.database.xid_age",
      description: "Transactions since the oldest unfrozen transaction id (Postgres refuses writes near 2^31)",
    },
    async () => {
      const ages = await readXidAges(db);
      return [
        { value: ages.database, attributes: { database: "current" } },
        { value: ages.oldest, attributes: { database: "oldest" } },
      ];
    },
  );
}
