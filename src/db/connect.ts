import { mkdir } from "node:fs/promises";
import type { Env } from "../config/env.js";
import type { Database, DatabaseHandle, DatabaseKind } from "./database.js";
import * as schema from "./schema/index.js";

/**
 * Opens the database the configuration names: PGlite with pgvector under `DATA_DIR` by default,
 * node-postgres for a `DATABASE_URL`, the Neon serverless driver for a Neon URL or
 * `DATABASE_DRIVER=neon`. Drivers load lazily so a deployment only pulls in the one it uses.
 *
 * @example
 * const { db, close } = await connectDatabase(parseEnv(process.env));
 */
export async function connectDatabase(
  env: Pick<Env, "DATA_DIR" | "DATABASE_URL" | "DATABASE_DRIVER"> & Partial<Pick<Env, "DATABASE_POOL_MAX">>,
): Promise<DatabaseHandle> {
  const kind = chooseDriver(env);
  if (kind === "pglite") return connectPglite(env.DATA_DIR);
  const url = env.DATABASE_URL;
  if (!url) throw new Error(`DATABASE_DRIVER=${kind} needs DATABASE_URL`);
  const poolMax = env.DATABASE_POOL_MAX ?? 10;
  return kind === "neon" ? connectNeon(url, poolMax) : connectNodePostgres(url, poolMax);
}

export function chooseDriver(env: Pick<Env, "DATABASE_URL" | "DATABASE_DRIVER">): DatabaseKind {
  if (env.DATABASE_DRIVER) return env.DATABASE_DRIVER;
  if (!env.DATABASE_URL) return "pglite";
  return new URL(env.DATABASE_URL).hostname.endsWith(".neon.tech") ? "neon" : "pg";
}

async function connectPglite(dataDir: string): Promise<DatabaseHandle> {
  const [{ PGlite }, { vector }, { drizzle }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite-pgvector"),
    import("drizzle-orm/pglite"),
  ]);
  if (!dataDir.startsWith("memory://")) await mkdir(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir, { extensions: { vector } });
  const db = drizzle(client, { schema }) as unknown as Database;
  return { db, kind: "pglite", close: () => client.close() };
}

async function connectNodePostgres(url: string, max: number): Promise<DatabaseHandle> {
  const [{ default: pg }, { drizzle }] = await Promise.all([import("pg"), import("drizzle-orm/node-postgres")]);
  const pool = new pg.Pool({ connectionString: url, max });
  const db = drizzle(pool, { schema }) as unknown as Database;
  return { db, kind: "pg", close: () => pool.end() };
}

async function connectNeon(url: string, max: number): Promise<DatabaseHandle> {
  const [{ Pool }, { drizzle }] = await Promise.all([import("@neondatabase/serverless"), import("drizzle-orm/neon-serverless")]);
  const pool = new Pool({ connectionString: url, max });
  const db = drizzle(pool, { schema }) as unknown as Database;
  return { db, kind: "neon", close: () => pool.end() };
}
