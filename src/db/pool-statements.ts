import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { sha256Hex } from "../util/hash.js";
import { type Database, queryRows } from "./database.js";

/** What a pg-compatible pool (node-postgres, Neon) offers: named statements, and simple queries of several statements. */
export interface ServerPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  query(text: string): Promise<unknown>;
}

/**
 * Strings inlined into a simple query, quoted as Postgres' own `quote_literal` does: quotes
 * doubled, and a string holding a backslash written `E'…'` with it doubled too, so the literal
 * reads the same whatever `standard_conforming_strings` is (the dialect's default quoting assumes on).
 */
class InliningDialect extends PgDialect {
  override escapeString(value: string): string {
    const quoted = value.replaceAll("'", "''");
    return value.includes("\\") ? `E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
  }
}

const pools = new WeakMap<object, { pool: ServerPool; prepared: boolean }>();
/** Per embedded database (one session): the statements prepared in it by name, each once. */
const embeddedSessions = new WeakMap<object, Map<string, Promise<unknown>>>();
const dialect = new PgDialect();
const inlining = new InliningDialect();

/**
 * Lets `queryRowsPrepared` and `queryRowsWithSettings` on `db` use `pool` (a server's; PGlite has
 * none). `prepared: false` (DATABASE_PREPARED_STATEMENTS) runs no named statements, for a pooler
 * that cannot keep them.
 */
export function registerServerPool(db: Database, pool: ServerPool, options: { prepared: boolean }): void {
  pools.set(db, { pool, prepared: options.prepared });
}

/** Whether `db` is a server's (node-postgres, Neon, a Worker's connection): its statements cost a round trip each. */
export function isServerDatabase(db: Database): boolean {
  return pools.has(db);
}

/** Lets `queryRowsPrepared` on `db`, an embedded database (PGlite: one session), prepare its statements with `PREPARE`. */
export function registerEmbeddedSession(db: Database): void {
  embeddedSessions.set(db, new Map());
}

/**
 * Rows of a statement that a server prepares once per connection and then plans generically:
 * for a hot statement whose plan cannot depend on its values (rows by primary key), planning was
 * half its time. The name is the hash of the text, so every shape of the statement (another
 * filter, another number of parameters) is a statement of its own. PGlite's driver has no named
 * statements, so there the statement is prepared with SQL's `PREPARE` and run with `EXECUTE`
 * (`executeInSession`). A transaction runs it as `queryRows` does: its client is not the pool's.
 *
 * Only for statements whose best plan is the same for any values: after five executions Postgres
 * may keep a generic plan, which for a statement that ranks a user's rows would be chosen for
 * the first user and kept for all. Values come back as the driver parses them, not as drizzle
 * does: a timestamp is a Date here and a string through `queryRows` on a server.
 */
export async function queryRowsPrepared<Row>(db: Database, query: SQL): Promise<Row[]> {
  const session = embeddedSessions.get(db);
  if (session) return executeInSession<Row>(db, session, query);
  const server = pools.get(db);
  if (!server?.prepared) return queryRows<Row>(db, query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  const result = await server.pool.query({ name: statementName(text), text, values: params });
  return result.rows as Row[];
}

/** 128 bits of the text's hash: within the 63 bytes of a Postgres identifier. */
const statementName = (text: string) => `mnemo_${sha256Hex(text).slice(0, 32)}`;

/**
 * `query` through a statement prepared once in the embedded session. `EXECUTE` takes no bind
 * parameters, so the values go as quoted literals, each taking the type `PREPARE` inferred for its
 * place. Planning was a large share of a recall's read of its hits (with what replaced each) on
 * PGlite; once the generic plan is kept, it is not planned again.
 */
async function executeInSession<Row>(db: Database, prepared: Map<string, Promise<unknown>>, query: SQL): Promise<Row[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const name = statementName(text);
  let ready = prepared.get(name);
  if (!ready) {
    // Awaited once here: drizzle runs a statement again for every `then` on its query.
    ready = (async () => db.execute(sql.raw(`PREPARE ${name} AS ${text}`)))();
    prepared.set(name, ready);
    // A statement that failed to prepare is prepared again by its next use (and fails the same way if it must).
    ready.catch(() => prepared.delete(name));
  }
  await ready;
  const values = params.map(literal);
  return queryRows<Row>(db, sql.raw(values.length > 0 ? `EXECUTE ${name}(${values.join(", ")})` : `EXECUTE ${name}`));
}

/** A bound value as a quoted literal of unknown type, which Postgres reads as the parameter's own type. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return inlining.escapeString(value);
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return `'${value}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  throw new Error(`a prepared statement's value of type ${typeof value} has no literal form here`);
}

/**
 * Rows of `query` with `settings` in force for it alone (`set_config(…, true)`: until its
 * transaction ends, so nothing leaks into a pooled connection's next user). On a server the
 * settings and the statement go as one simple query, which runs as one implicit transaction, a
 * transaction-mode pooler's too: one round trip where BEGIN, the settings, the statement and
 * COMMIT took four, which the vector arm's latency on a real Postgres shows. A simple query takes no parameters, so values are
 * inlined as literals; the planner sees them as it sees an unnamed statement's. PGlite (in
 * process, no round trips) and an unregistered database run that transaction.
 */
export async function queryRowsWithSettings<Row>(db: Database, settings: Record<string, string>, query: SQL): Promise<Row[]> {
  const assignments = sql`SELECT ${sql.join(
    Object.entries(settings).map(([name, value]) => sql`set_config(${name}, ${value}, true)`),
    sql`, `,
  )}`;
  const server = pools.get(db);
  if (!server) {
    return db.transaction(async (tx) => {
      await tx.execute(assignments);
      return queryRows<Row>(tx, query);
    });
  }
  const text = `${inlining.sqlToQuery(assignments.inlineParams()).sql}; ${inlining.sqlToQuery(query.inlineParams()).sql}`;
  const results = (await server.pool.query(text)) as { rows: unknown[] }[];
  return (results.at(-1)?.rows ?? []) as Row[];
}

/** `db` as a query surface whose every statement runs with `settings` of its own (`queryRowsWithSettings`). */
export function withSettings(db: Database, settings: Record<string, string>): Pick<Database, "execute"> {
  const execute = (query: SQL) => queryRowsWithSettings(db, settings, query).then((rows) => ({ rows }));
  // queryRows reads only `rows`, whatever the driver: the one part of a result this surface has.
  return { execute } as unknown as Pick<Database, "execute">;
}
