import { hc } from "hono/client";
import type { App } from "../functions/app.js";

export interface MemoryClientOptions {
  /** An app's API key (`npx mnemo create-key`); optional against a loopback dev server. */
  apiKey?: string;
  /** A fetch to use instead of the global one (tests, custom agents, a Worker service binding). */
  fetch?: typeof fetch;
}

/**
 * A typed client for the HTTP API, built from the app's own route types (Hono RPC): request
 * bodies, queries and path parameters are checked by the compiler against the server's schemas.
 *
 * @example
 * const memory = createMemoryClient("http://localhost:8787", { apiKey: process.env.MEMORY_KEY });
 * const session = await (await memory.v1.sessions.$post({ json: { user_id: "ana" } })).json();
 * await memory.v1.sessions[":id"].events.$post({ param: { id: session.id }, json: { events: [{ type: "message", role: "user", content: "Hi" }] } });
 */
export function createMemoryClient(baseUrl: string, options: MemoryClientOptions = {}) {
  return hc<App>(baseUrl, {
    ...(options.apiKey ? { headers: { authorization: `Bearer ${options.apiKey}` } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export type MemoryClient = ReturnType<typeof createMemoryClient>;
