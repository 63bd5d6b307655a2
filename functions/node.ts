import { parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { DataDirInUseError } from "../src/db/data-dir-lock.js";
import { createLogger } from "../src/util/logger.js";

/** Node entry: `npm start`. Embedded by default (PGlite under DATA_DIR, offline providers). */
const env = parseEnv(process.env);
const logger = createLogger(env.LOG_LEVEL);
// PGlite compiles its WebAssembly off the main thread: the database opens while the rest of the
// service's modules load (a third of the cold start).
const database = connectDatabase(env, logger.warn).catch((error: unknown) => {
  // Another process holds the embedded database: say so plainly instead of a stack trace.
  if (!(error instanceof DataDirInUseError)) throw error;
  logger.error(error.message);
  process.exit(1);
});
const [{ serve }, { startRuntime }] = await Promise.all([import("@hono/node-server"), import("./node-runtime.js")]);
const runtime = await startRuntime(env, { database });
const server = serve({ fetch: runtime.app.fetch, port: env.PORT, hostname: env.HOST }, (info) => {
  const host = env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST === "::" ? "::1" : env.HOST;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
  logger.info(`listening on http://${env.HOST}:${info.port}`);
  // CLI commands on the same DATA_DIR find the server here and send their work to it.
  void runtime.database.dataDirLock?.advertise(url);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info(`${signal}: shutting down`);
  server.close();
  await runtime.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
