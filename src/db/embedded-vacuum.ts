import { sql } from "drizzle-orm";
import type { Logger } from "../util/logger.js";
import { type Database, queryRows } from "./database.js";

/**
 * When a table is due, as Postgres's autovacuum decides with its defaults: vacuum past
 * `vacuumThreshold` + `vacuumScaleFactor` × rows dead tuples, analyze past `analyzeThreshold` +
 * `analyzeScaleFactor` × rows changed rows, and vacuum everything once the oldest unfrozen
 * transaction id is `freezeTableAge` old (`vacuum_freeze_table_age`), freezing every row.
 */
export interface VacuumPolicy {
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  freezeTableAge: number;
}

export const AUTOVACUUM_DEFAULTS: VacuumPolicy = {
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
  freezeTableAge: 150_000_000,
};

export interface VacuumPass {
  /** Tables vacuumed (and analyzed); every table when `frozen`. */
  vacuumed: string[];
  /** Tables only analyzed. */
  analyzed: string[];
  /** The whole database was vacuumed to freeze old transaction ids. */
  frozen: boolean;
}

/**
 * Vacuums and analyzes the tables that are due (`VacuumPolicy`). For the embedded database:
 * PGlite runs no autovacuum (one process, no background workers), so without this every
 * update left its old row behind for good. Sixty daily decay passes over 20,000 memories grew
 * the table fourfold (39 → 156 MB) and a scan of it 3-12× slower; with a vacuum after each pass
 * it stays at 78 MB, its scan 1.2× slower. And a busy embedded service would, after two billion transactions, stop
 * taking writes to protect itself from transaction id wraparound.
 */
export async function vacuumWhereDue(db: Database, policy: VacuumPolicy = AUTOVACUUM_DEFAULTS): Promise<VacuumPass> {
  const [database] = await queryRows<{ age: number }>(
    db,
    sql`SELECT age(datfrozenxid)::float8 AS age FROM pg_database WHERE datname = current_database()`,
  );
  if (Number(database?.age ?? 0) > policy.freezeTableAge) {
    await db.execute(sql`VACUUM (FREEZE, ANALYZE)`);
    return { vacuumed: [], analyzed: [], frozen: true };
  }
  // reltuples is -1 until a table is first vacuumed or analyzed.
  const rows = sql`greatest(c.reltuples, 0)`;
  const tables = await queryRows<{ name: string; vacuum: boolean; analyze: boolean }>(
    db,
    sql`SELECT s.relname AS name,
               s.n_dead_tup > ${policy.vacuumThreshold}::float8 + ${policy.vacuumScaleFactor}::float8 * ${rows} AS vacuum,
               s.n_mod_since_analyze > ${policy.analyzeThreshold}::float8 + ${policy.analyzeScaleFactor}::float8 * ${rows} AS analyze
          FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
         WHERE s.schemaname = current_schema()
         ORDER BY s.relname`,
  );
  const pass: VacuumPass = { vacuumed: [], analyzed: [], frozen: false };
  for (const table of tables) {
    if (table.vacuum) {
      await db.execute(sql`VACUUM (ANALYZE) ${sql.identifier(table.name)}`);
      pass.vacuumed.push(table.name);
    } else if (table.analyze) {
      await db.execute(sql`ANALYZE ${sql.identifier(table.name)}`);
      pass.analyzed.push(table.name);
    }
  }
  return pass;
}

/**
 * Runs `vacuumWhereDue` every `intervalMs` (autovacuum's own naptime is a minute), one pass at a
 * time; `stop` ends the schedule once the pass in flight is done. A failed pass is logged and the
 * next one tries again.
 */
export function scheduleVacuum(
  db: Database,
  options: { intervalMs: number; logger: Pick<Logger, "info" | "warn">; policy?: VacuumPolicy },
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      const started = performance.now();
      try {
        const pass = await vacuumWhereDue(db, options.policy);
        if (pass.frozen || pass.vacuumed.length > 0 || pass.analyzed.length > 0)
          options.logger.info("embedded database vacuumed", { ...pass, ms: Math.round(performance.now() - started) });
      } catch (error) {
        options.logger.warn("vacuuming the embedded database failed; the next pass tries again", { error: String(error) });
      }
      if (!stopped) timer = setTimeout(tick, options.intervalMs).unref();
    })();
  };
  timer = setTimeout(tick, options.intervalMs).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
