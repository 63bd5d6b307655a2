import { mkdir } from "node:fs/promises";
import { durationMs, type Env } from "../config/env.js";
import { acquireDataDirLock } from "./data-dir-lock.js";
import type { Database, DatabaseHandle, DatabaseKind } from "./database.js";
import { registerEmbeddedSession, registerServerPool } from "./pool-statements.js";
import { releaseClientOnFailedBegin } from "./release-failed-begin.js";
import * as schema from "./schema/index.js";

export type ConnectOptions = Pick<Env, "DATA_DIR" | "DATABASE_URL" | "DATABASE_DRIVER"> &
  Partial<Pick<Env, "DATABASE_POOL_MAX" | "DATABASE_CONNECT_TIMEOUT" | "DATABASE_PREPARED_STATEMENTS" | "NEON_WS_PROXY">>;

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
 * const { db, close } = await connectDatabase(parseEnv(process.env));
 */
export async function connectDatabase(env: ConnectOptions, log: ConnectionLog = () => undefined): Promise<DatabaseHandle> {
  const kind = chooseDriver(env);
  if (kind === "pglite") return connectPglite(env.DATA_DIR, env.DATABASE_PREPARED_STATEMENTS ?? true);
  const url = env.DATABASE_URL;
  if (!url) throw new Error(`DATABASE_DRIVER=${kind} needs DATABASE_URL`);
  const pool = {
    url,
    max: env.DATABASE_POOL_MAX ?? 10,
    connectTimeoutMs: durationMs(env.DATABASE_CONNECT_TIMEOUT ?? "5s"),
    preparedStatements: env.DATABASE_PREPARED_STATEMENTS ?? true,
  };
  return kind === "neon" ? connectNeon(pool, env.NEON_WS_PROXY, log) : connectNodePostgres(pool, log);
}

export function chooseDriver(env: Pick<Env, "DATABASE_URL" | "DATABASE_DRIVER">): DatabaseKind {
  if (env.DATABASE_DRIVER) return env.DATABASE_DRIVER;
  if (!env.DATABASE_URL) return "pglite";
  return new URL(env.DATABASE_URL).hostname.endsWith(".neon.tech") ? "neon" : "pg";
}

async function connectPglite(dataDir: string, preparedStatements: boolean): Promise<DatabaseHandle> {
  const [{ PGlite }, { vector }, { btree_gin }, { drizzle }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite-pgvector"),
    import("@electric-sql/pglite/contrib/btree_gin"),
    import("drizzle-orm/pglite"),
  ]);
  const inMemory = dataDir.startsWith("memory://");
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  // PGlite is one process's database: a second process on the same files would see neither the
  // first one's writes nor its own after a restart.
  const lock = inMemory ? undefined : await acquireDataDirLock(dataDir);
  try {
    const client = await PGlite.create(dataDir, { extensions: { vector, btree_gin } });
    // The embedded database writes the memory change log its resident recall copies read
    // (db/schema/memory-change-log.ts); a server's sessions leave it off.
    await client.exec("SET mnemo.change_log = on");
    const db = drizzle(client, { schema }) as unknown as Database;
    if (preparedStatements) registerEmbeddedSession(db);
    return {
      db,
      kind: "pglite",
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
  pool.on("error", (error) => log("database connection lost (idle)", { error: error.message }));
  pool.on("connect", (client) => {
    client.on("error", (error) => log("database connection lost", { error: error.message }));
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
  const db = drizzle(releaseClientOnFailedBegin(pool), { schema }) as unknown as Database;
  registerServerPool(db, pool, { prepared: settings.preparedStatements });
  return { db, kind: "pg", close: () => pool.end() };
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
  const db = drizzle(releaseClientOnFailedBegin(pool), { schema }) as unknown as Database;
  registerServerPool(db, pool, { prepared: settings.preparedStatements });
  return { db, kind: "neon", close: () => pool.end() };
}
