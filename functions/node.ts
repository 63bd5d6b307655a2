import { serve } from "@hono/node-server";
import { parseEnv } from "../src/config/env.js";
import { DataDirInUseError } from "../src/db/data-dir-lock.js";
import { startRuntime } from "./node-runtime.js";

/** Node entry: `npm start`. Embedded by default (PGlite under DATA_DIR, offline providers). */
const env = parseEnv(process.env);
const runtime = await startRuntime(env).catch((error: unknown) => {
  // Another process holds the embedded database: say so plainly instead of a stack trace.
  if (!(error instanceof DataDirInUseError)) throw error;
  console.error(JSON.stringify({ level: "error", message: error.message }));
  process.exit(1);
});
const server = serve({ fetch: runtime.app.fetch, port: env.PORT, hostname: env.HOST }, (info) => {
  const host = env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST === "::" ? "::1" : env.HOST;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
  console.error(JSON.stringify({ level: "info", message: `listening on http://${env.HOST}:${info.port}` }));
  // CLI commands on the same DATA_DIR find the server here and send their work to it.
  void runtime.database.dataDirLock?.advertise(url);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.error(JSON.stringify({ level: "info", message: `${signal}: shutting down` }));
  server.close();
  await runtime.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
