import type { PGlite } from "@electric-sql/pglite";
import { recordDatabaseWait, registerGauge } from "../telemetry/metrics.js";
import { createConnectionGate, gateEmbeddedClient } from "./connection-gate.js";
import { ensureDataDir } from "./data-dir.js";
import { acquireDataDirLock } from "./data-dir-lock.js";
import type { Database, DatabaseHandle, DatabaseKind } from "./database.js";
import type { ThreadedPglite } from "./pglite-thread/threaded-pglite.js";
import { registerEmbeddedSession, registerServerPool } from "./pool-statements.js";
import { releaseClientOnFailedBegin } from "./release-failed-begin.js";
import * as schema from "./schema/index.js";
import { tracePglite, tracePool } from "./traced-statements.js";

/** Where the database is and how to reach it (DATA_DIR, DATABASE_URL, DATABASE_DRIVER, DATABASE_POOL_MAX …). */
export interface ConnectOptions {
  /** A Postgres URL; without one the embedded database under `dataDir` opens. */
  url?: string | undefined;
  /** Overrides the driver the URL implies. */
  driver?: DatabaseKind | undefined;
  /** PGlite's data directory; "memory://" (the default) keeps it in memory. */
  dataDir?: string | undefined;
  /** PGlite in a worker thread of its own (the default), or on the caller's thread (`false`). */
  thread?: boolean | undefined;
  /** Connections the node-postgres / Neon pool may open (default 10). */
  poolMax?: number | undefined;
  /** How long a query waits for a pooled connection (default 5 s). */
  connectTimeoutMs?: number | undefined;
  /** Named statements for hot reads (default on). */
  preparedStatements?: boolean | undefined;
  /** Neon's WebSocket proxy in front of a plain Postgres (`host:port/v1`). */
  neonWsProxy?: string | undefined;
  /** The pool's name in `/metrics` (default `main`). */
  poolName?: string | undefined;
}

/** Where lost connections are reported: they are expected during a failover and must not kill the process. */
export type ConnectionLog = (message: string, fields?: Record<string, unknown>) => void;

/**
 * Opens the database the configuration names: PGlite with pgvector under `DATA_DIR` by default,
 * node-postgres for a `DATABASE_URL`, the Neon serverless driver for a Neon URL or
 * `DATABASE_DRIVER=neon`. Drivers load lazily so a deployment only pulls in the one it uses.
 *
 * A pooled connection that dies (a terminated backend, a restart, a failover) is logged and
 * dropped from the pool; the next query opens a new one. Requests whose connection died fail
 * with an error `isDatabaseUnavailable` recognises (503), never with a crash.
 *
 * @example
 * const { db, close } = await connectDatabase({ url: "postgres://localhost/mnemo", poolMax: 4 });
 */
export async function connectDatabase(options: ConnectOptions, log: ConnectionLog = () => undefined): Promise<DatabaseHandle> {
  const kind = chooseDriver(options);
  if (kind === "pglite")
    return connectPglite(options.dataDir ?? "memory://", options.preparedStatements ?? true, options.thread ?? true, log);
  const url = options.url;
  if (!url) throw new Error(`DATABASE_DRIVER=${kind} needs DATABASE_URL`);
  const pool = {
    url,
    max: options.poolMax ?? 10,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    preparedStatements: options.preparedStatements ?? true,
    name: options.poolName ?? "main",
  };
  return kind === "neon" ? connectNeon(pool, options.neonWsProxy, log) : connectNodePostgres(pool, log);
}

/** The driver a URL implies: none → PGlite, a Neon host → Neon's driver, anything else → node-postgres. */
export function chooseDriver(options: Pick<ConnectOptions, "url" | "driver">): DatabaseKind {
  if (options.driver) return options.driver;
  if (!options.url) return "pglite";
  return new URL(options.url).hostname.endsWith(".neon.tech") ? "neon" : "pg";
}

/** PGlite with pgvector, in a worker thread of its own or on this one. */
async function openPglite(dataDir: string, thread: boolean, log: ConnectionLog): Promise<PgliteClient> {
  if (thread) {
    const { ThreadedPglite } = await import("./pglite-thread/threaded-pglite.js");
    return ThreadedPglite.open(dataDir, (error) =>
      log("the embedded database's thread stopped: every statement fails until the service restarts", { error }),
    );
  }
  const [{ PGlite }, { vector }, { btree_gin }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite-pgvector"),
    import("@electric-sql/pglite/contrib/btree_gin"),
  ]);
  return PGlite.create(dataDir, { extensions: { vector, btree_gin } });
}

/** The part of PGlite the service uses, which the threaded client offers too. */
type PgliteClient = Pick<ThreadedPglite, "query" | "exec" | "transaction" | "close">;

async function connectPglite(dataDir: string, preparedStatements: boolean, thread: boolean, log: ConnectionLog): Promise<DatabaseHandle> {
  const inMemory = dataDir.startsWith("memory://");
  // Before loading PGlite, so an unusable or taken directory is reported at once.
  if (!inMemory) await ensureDataDir(dataDir);
  // PGlite is one process's database: a second process on the same files would see neither the
  // first one's writes nor its own after a restart.
  const lock = inMemory ? undefined : await acquireDataDirLock(dataDir);
  let opened: PgliteClient | undefined;
  try {
    const [{ drizzle }, started] = await Promise.all([import("drizzle-orm/pglite"), openPglite(dataDir, thread, log)]);
    opened = started;
    const gate = createConnectionGate({ onGrant: (waitMs, work) => recordDatabaseWait(waitMs / 1000, work) });
    const client = gateEmbeddedClient(tracePglite(started), gate);
    // The embedded database writes the memory change log its resident recall copies read
    // (db/schema/memory-change-log.ts); a server's sessions leave it off.
    await client.exec("SET mnemo.change_log = on");
    // WAL segments a checkpoint no longer needs are unlinked, not renamed for reuse with their old
    // records inside, so an erasure's scrub (db/erasure-scrub.ts) leaves no copy of the erased rows in pg_wal.
    await client.exec("SET wal_recycle = off");
    // drizzle's PGlite driver calls only `query` and `transaction` (drizzle-orm/pglite/session.js),
    // which the threaded client answers as PGlite does; its type names the whole PGlite class.
    const db = drizzle(client as unknown as PGlite, { schema }) as unknown as Database;
    if (preparedStatements) registerEmbeddedSession(db);
    return {
      db,
      kind: "pglite",
      gate,
      ...(lock ? { dataDirLock: lock } : {}),
      async close() {
        try {
          await client.close();
        } finally {
          await lock?.release();
        }
      },
    };
  } catch (error) {
    await opened?.close().catch(() => undefined);
    await lock?.release();
    throw error;
  }
}

interface PoolSettings {
  url: string;
  max: number;
  connectTimeoutMs: number;
  /** DATABASE_PREPARED_STATEMENTS. */
  preparedStatements: boolean;
  name: string;
}

interface ObservedPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Every open pool by the name it is reported under; the gauges read them all at each scrape. */
const openPools = new Map<ObservedPool, string>();
let poolGauges = false;

/**
 * The pools' connections in use and idle, and queries waiting for one (OpenTelemetry's
 * `db.client.connection.*`, labelled `pool`), read at each scrape; returns what forgets the pool.
 */
function observePool(pool: ObservedPool, name: string): () => void {
  openPools.set(pool, name);
  if (!poolGauges) {
    poolGauges = true;
    const sum = (read: (pool: ObservedPool) => number, attributes: Record<string, string> = {}) => {
      const totals = new Map<string, number>();
      for (const [open, named] of openPools) totals.set(named, (totals.get(named) ?? 0) + read(open));
      return [...totals].map(([named, value]) => ({ value, attributes: { pool: named, ...attributes } }));
    };
    registerGauge({ name: "db.client.connection.count", description: "Connections of the database pools, by state" }, () => [
      ...sum((open) => open.totalCount - open.idleCount, { "db.client.connection.state": "used" }),
      ...sum((open) => open.idleCount, { "db.client.connection.state": "idle" }),
    ]);
    registerGauge({ name: "db.client.connection.pending_requests", description: "Queries waiting for a pooled connection" }, () =>
      sum((open) => open.waitingCount),
    );
  }
  return () => openPools.delete(pool);
}

/** The events node-postgres and Neon pools share. */
interface EventedPool {
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect", listener: (client: { on(event: "error", listener: (error: Error) => void): unknown }) => void): unknown;
}

/**
 * Without these listeners an idle client whose backend is terminated emits an unhandled 'error'
 * and takes the process down. A client checked out for a transaction has no pool listener, so
 * each client gets its own too; its next query fails and the pool discards it on release.
 */
function survivePoolErrors(pool: EventedPool, log: ConnectionLog): void {
  pool.on("error", (error) => log("database connection lost (idle)", { error }));
  pool.on("connect", (client) => {
    client.on("error", (error) => log("database connection lost", { error }));
  });
}

async function connectNodePostgres(settings: PoolSettings, log: ConnectionLog): Promise<DatabaseHandle> {
  const [{ default: pg }, { drizzle }] = await Promise.all([import("pg"), import("drizzle-orm/node-postgres")]);
  const pool = new pg.Pool({
    connectionString: settings.url,
    max: settings.max,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    // Notices dead peers (a failover without a FIN) instead of waiting on a socket forever.
    keepAlive: true,
  });
  survivePoolErrors(pool, log);
  const db = drizzle(releaseClientOnFailedBegin(tracePool(pool)), { schema }) as unknown as Database;
  registerServerPool(db, pool, { prepared: settings.preparedStatements });
  const stopGauges = observePool(pool, settings.name);
  return {
    db,
    kind: "pg",
    close: () => {
      stopGauges();
      return pool.end();
    },
  };
}

async function connectNeon(settings: PoolSettings, wsProxy: string | undefined, log: ConnectionLog): Promise<DatabaseHandle> {
  const [{ Pool, neonConfig }, { drizzle }, { default: WebSocket }] = await Promise.all([
    import("@neondatabase/serverless"),
    import("drizzle-orm/neon-serverless"),
    import("ws"),
  ]);
  // Node 20 has no global WebSocket; Neon's driver speaks the Postgres protocol over one.
  neonConfig.webSocketConstructor = WebSocket;
  if (wsProxy) {
    // A plain Postgres behind Neon's WebSocket proxy (local development, tests): no TLS on the
    // socket, and no pipelined password start-up (the server may not use password auth).
    neonConfig.wsProxy = (host, port) => `${wsProxy}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  const pool = new Pool({ connectionString: settings.url, max: settings.max, connectionTimeoutMillis: settings.connectTimeoutMs });
  survivePoolErrors(pool as unknown as EventedPool, log);
  const db = drizzle(releaseClientOnFailedBegin(tracePool(pool)), { schema }) as unknown as Database;
  registerServerPool(db, pool, { prepared: settings.preparedStatements });
  const stopGauges = observePool(pool, settings.name);
  return {
    db,
    kind: "neon",
    close: () => {
      stopGauges();
      return pool.end();
    },
  };
}
