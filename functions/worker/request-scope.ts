import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "../../src/db/database.js";
import type { BackgroundTasks } from "../background.js";

/**
 * What lives exactly as long as one request on Workers: its database connection (a socket cannot
 * outlive the request that opened it) and the work it leaves for after the response. The app, the
 * Inngest client and its functions are built once per isolate and reach these through the async
 * context of the request they serve.
 */
export interface RequestScope {
  db: Database;
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
