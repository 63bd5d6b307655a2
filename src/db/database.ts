import { type SQL, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { DatabaseKind } from "../vocabulary/database-kind.js";
import type { ConnectionGate } from "./connection-gate.js";
import type { DataDirLock } from "./data-dir-lock.js";
import type * as schema from "./schema/index.js";

/** The drizzle database every store works against, whichever driver is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** What runs queries: the database itself or a transaction it opened — the same query surface either way. */
export type Queryable = Pick<Database, "select" | "selectDistinct" | "insert" | "update" | "delete" | "execute">;

export type { DatabaseKind } from "../vocabulary/database-kind.js";

export interface DatabaseHandle {
  db: Database;
  kind: DatabaseKind;
  /** PGlite on disk: this process's claim on the data directory. */
  dataDirLock?: DataDirLock;
  /** PGlite: the queue in front of its one connection (requests before background work). */
  gate?: ConnectionGate;
  close(): Promise<void>;
}

/**
 * Rows of a raw SQL statement. The drivers wrap results differently (PGlite `Results`, pg
 * `QueryResult`), but all of them expose `rows`.
 */
export async function queryRows<Row>(db: Pick<Database, "execute">, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}

/** Runs a `DELETE …` (without `RETURNING`) and counts the rows it deleted, the same on every driver. */
export async function deletedCount(db: Pick<Database, "execute">, statement: SQL): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`WITH gone AS (${statement} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
  return Number(row?.n ?? 0);
}
