import { sql } from "drizzle-orm";
import journal from "../../drizzle/meta/_journal.json" with { type: "json" };
import { type Database, queryRows } from "./database.js";

/** How far a database's schema is from the migrations this code was built with. */
export interface MigrationState {
  /** Migrations this code ships (`drizzle/meta/_journal.json`). */
  expected: number;
  /** Of those, how many the database has applied (drizzle records each by its folder time). */
  applied: number;
  atHead: boolean;
}

const SHIPPED = journal.entries.map((entry) => entry.when);

/**
 * Compares the migrations drizzle recorded in `drizzle.__drizzle_migrations` with the ones this
 * code ships: a server migrated by an older release (or never) is not at head, and the service is
 * not ready on it until `npx mnemo migrate` has run. A database that was never migrated has no
 * record table: 0 applied.
 *
 * @example
 * const { atHead } = await migrationState(db);
 */
export async function migrationState(db: Pick<Database, "execute">): Promise<MigrationState> {
  let latest = 0;
  try {
    const [row] = await queryRows<{ latest: string | number | null }>(
      db,
      sql`SELECT max(created_at) AS latest FROM drizzle.__drizzle_migrations`,
    );
    latest = Number(row?.latest ?? 0);
  } catch (error) {
    if (!neverMigrated(error)) throw error;
  }
  const applied = SHIPPED.filter((when) => when <= latest).length;
  return { expected: SHIPPED.length, applied, atHead: applied === SHIPPED.length };
}

/** 42P01 undefined table, 3F000 undefined schema: drizzle has never migrated this database. */
function neverMigrated(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === "42P01" || code === "3F000") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
