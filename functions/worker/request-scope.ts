import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "../../src/db/database.js";
import type { ServerPool } from "../../src/db/pool-statements.js";
import type { BackgroundTasks } from "../background.js";

/**
 * What lives exactly as long as one request on Workers: its database connection (a socket cannot
 * outlive the request that opened it) and the work it leaves for after the response. The app, the
 * Inngest client and its functions are built once per isolate and reach these through the async
 * context of the request they serve.
 */
export interface RequestScope {
  db: Database;
  /** The same connection as `db`, for the statements `pool-statements.ts` sends itself. */
  connection: ServerPool;
  background: BackgroundTasks;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentScope(): RequestScope {
  const scope = storage.getStore();
  if (!scope) throw new Error("no request in progress: on Workers the database exists only inside a request");
  return scope;
}

/**
 * A Database that is, at every use, the database of the request in progress — so everything built
 * once per isolate (pipeline views, the access recorder, the Inngest functions' dependencies) can
 * hold "the database" and still use each request's own connection.
 */
export const scopedDatabase: Database = new Proxy({} as Database, {
  get(_target, property) {
    const db = currentScope().db;
    const value: unknown = Reflect.get(db, property, db);
    return typeof value === "function" ? value.bind(db) : value;
  },
});

/**
 * The connection of the request in progress, as `scopedDatabase`'s server pool: a statement with
 * settings of its own (recall's vector arm, each statement of the text arm) goes over it as one
 * simple query, one round trip, instead of a transaction of four (BEGIN, the settings, the
 * statement, COMMIT). Registered with `registerServerPool` once per isolate.
 */
export const scopedConnection: ServerPool = {
  query(config: string | { name: string; text: string; values: unknown[] }) {
    const connection = currentScope().connection;
    return typeof config === "string" ? connection.query(config) : connection.query(config);
  },
} as ServerPool;
