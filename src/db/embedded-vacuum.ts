import { sql } from "drizzle-orm";
import type { Logger } from "../util/logger.js";
import { type Database, queryRows } from "./database.js";
import { repeatEvery } from "./repeating-pass.js";

/**
 * When a table is due, as Postgres's autovacuum decides with its defaults: vacuum past
 * `vacuumThreshold` + `vacuumScaleFactor` × rows dead tuples, analyze past `analyzeThreshold` +
 * `analyzeScaleFactor` × rows changed rows.
 */
export interface VacuumPolicy {
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
}

export const AUTOVACUUM_DEFAULTS: VacuumPolicy = {
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
};

export interface VacuumPass {
  /** Tables vacuumed (and analyzed). */
  vacuumed: string[];
  /** Tables only analyzed. */
  analyzed: string[];
}

/**
 * Vacuums and analyzes the tables that are due (`VacuumPolicy`). For the embedded database:
 * PGlite runs no autovacuum (one process, no background workers), so without this only
 * opportunistic page pruning ever reclaimed the old rows updates leave. Sixty daily rewrites of
 * 20,000 memories (the decay pass's, while it stored retention) grew the table fourfold (39 →
 * 156 MB) and a scan of it 3-12× slower; with a vacuum after each pass it stays at 78 MB, its scan
 * 1.2× slower.
 *
 * No freezing: Postgres stops taking writes as its oldest database nears transaction id
 * wraparound, and the template databases age with this one. PGlite opens one database, so
 * vacuuming this one alone would not move that limit (2^31 write transactions: 250 days at
 * 100 a second).
 */
export async function vacuumWhereDue(
  db: Database,
  policy: VacuumPolicy = AUTOVACUUM_DEFAULTS,
  stopping: () => boolean = () => false,
): Promise<VacuumPass> {
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
  const pass: VacuumPass = { vacuumed: [], analyzed: [] };
  for (const table of tables) {
    // A stop waits for the table in hand only; the next pass finds the others still due.
    if (stopping()) break;
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
 * time; `stop` ends the schedule once the table in hand is done. A failed pass is logged and the
 * next one tries again.
 */
export function scheduleVacuum(
  db: Database,
  options: { intervalMs: number; logger: Pick<Logger, "info" | "warn">; policy?: VacuumPolicy },
): { stop(): Promise<void> } {
  return repeatEvery(
    options.intervalMs,
    async (stopping) => {
      const started = performance.now();
      const pass = await vacuumWhereDue(db, options.policy, stopping);
      if (pass.vacuumed.length > 0 || pass.analyzed.length > 0)
        options.logger.info("embedded database vacuumed", { ...pass, ms: Math.round(performance.now() - started) });
    },
    (error) => options.logger.warn("vacuuming the embedded database failed; the next pass tries again", { error }),
  );
}
