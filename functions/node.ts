import { serve } from "@hono/node-server";
import { parseEnv } from "../src/config/env.js";
import { startRuntime } from "./node-runtime.js";

/** Node entry: `npm start`. Embedded by default (PGlite under DATA_DIR, offline providers). */
const env = parseEnv(process.env);
const runtime = await startRuntime(env);
const server = serve({ fetch: runtime.app.fetch, port: env.PORT, hostname: env.HOST }, (info) => {
  console.error(JSON.stringify({ level: "info", message: `listening on http://${env.HOST}:${info.port}` }));
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
