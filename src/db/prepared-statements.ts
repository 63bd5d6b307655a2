import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { sha256Hex } from "../util/hash.js";
import { type Database, queryRows } from "./database.js";

/** What a pg-compatible pool (node-postgres, Neon) offers for a named statement. */
export interface NamedStatementPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const pools = new WeakMap<object, NamedStatementPool>();
const dialect = new PgDialect();

/** Lets `queryRowsPrepared` on `db` run named statements on `pool` (a server's pool; PGlite has none). */
export function enablePreparedStatements(db: Database, pool: NamedStatementPool): void {
  pools.set(db, pool);
}

/**
 * Rows of a statement that a server prepares once per connection and then plans generically:
 * for a hot statement whose plan cannot depend on its values (rows by primary key), planning was
 * half its time. The name is the hash of the text, so every shape of the statement (another
 * filter, another number of parameters) is a statement of its own. Transactions and PGlite run
 * it as `queryRows` does: PGlite's driver has no named statements, and a transaction's client is
 * not the pool's.
 *
 * Only for statements whose best plan is the same for any values: after five executions Postgres
 * may keep a generic plan, which for a statement that ranks a user's rows would be chosen for
 * the first user and kept for all. Values come back as the driver parses them, not as drizzle
 * does: a timestamp is a Date here and a string through `queryRows` on a server.
 */
export async function queryRowsPrepared<Row>(db: Database, query: SQL): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) return queryRows<Row>(db, query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  // 128 bits of the hash: within the 63 bytes of a Postgres identifier.
  const name = `mnemo_${sha256Hex(text).slice(0, 32)}`;
  const result = await pool.query({ name, text, values: params });
  return result.rows as Row[];
}
