import { createMemoryClient } from "../client/index.js";
import { type Runtime, startRuntime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { parseEnv } from "../src/config/env.js";

/**
 * The examples run the whole service in-process on an in-memory database with the offline
 * providers, so they need no server, no network and no keys; with `DATABASE_URL` set, on that
 * Postgres instead (the examples test runs them on both). Against a deployed service, use
 * `createMemoryClient("https://…", { apiKey })` instead.
 */
export async function startInProcess(): Promise<{
  runtime: Runtime;
  client: ReturnType<typeof createMemoryClient>;
  settled: (userId: string) => Promise<void>;
}> {
  const runtime = await startRuntime(
    parseEnv({
      ...(process.env["DATABASE_URL"] ? { DATABASE_URL: process.env["DATABASE_URL"] } : { DATA_DIR: "memory://" }),
      LOG_LEVEL: "error",
      REPLAY_DEBOUNCE: "100ms",
      REFLECTION_DEBOUNCE: "100ms",
    }),
  );
  const client = inProcessClient(runtime.app);
  const settled = (userId: string) => waitForSettled(runtime.app, userId, { intervalMs: 100 });
  return { runtime, client, settled };
}

/**
 * A typed client whose requests go straight to the app (`app.request`), with no network between.
 *
 * @example
 * const client = inProcessClient(runtime.app);
 */
export function inProcessClient(app: Runtime["app"]): ReturnType<typeof createMemoryClient> {
  const fetchInProcess = (input: RequestInfo | URL, init?: RequestInit) =>
    Promise.resolve(app.request(input instanceof Request ? input : String(input), init));
  return createMemoryClient("http://localhost", { fetch: fetchInProcess as typeof fetch });
}
