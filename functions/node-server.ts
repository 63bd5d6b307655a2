import type { AddressInfo } from "node:net";
import { createAdaptorServer, type HttpBindings, type ServerType } from "@hono/node-server";
import { StartupError } from "../src/errors.js";

type Fetch = (request: Request, bindings: HttpBindings) => Response | Promise<Response>;

/** The HTTP server of the Node entry, listening before the service behind it is ready. */
export interface NodeServer {
  server: ServerType;
  /** Where clients on this machine reach it, e.g. http://127.0.0.1:8787. */
  url: string;
  /** Hands requests to the service from now on. */
  serve(fetch: Fetch): void;
}

/**
 * Takes the port first, so a port in use (or a host that is not this machine's) stops start-up at
 * once with one line, before the database is opened. Until `serve()` is called every request but
 * `/livez` is answered 503 "starting" (an orchestrator's startup probe waits, traffic is held off).
 *
 * @example
 * const http = await listen({ port: 8787, host: "127.0.0.1" });
 * http.serve(runtime.app.fetch);
 */
export async function listen(options: { port: number; host: string }): Promise<NodeServer> {
  let handler: Fetch = starting;
  const server = createAdaptorServer({ fetch: (request, bindings) => handler(request, bindings as HttpBindings) });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenFailure(error, options)));
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === "0.0.0.0" ? "127.0.0.1" : options.host === "::" ? "::1" : options.host;
  return {
    server,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    serve(fetch) {
      handler = fetch;
    },
  };
}

function starting(request: Request): Response {
  if (new URL(request.url).pathname === "/livez") return Response.json({ status: "ok" });
  return Response.json(
    { error: { code: "unavailable", message: "the service is starting; retry shortly", details: { retry_after_seconds: 1 } } },
    { status: 503, headers: { "retry-after": "1" } },
  );
}

function listenFailure(error: NodeJS.ErrnoException, options: { port: number; host: string }): Error {
  const where = `PORT ${options.port} on HOST ${options.host}`;
  switch (error.code) {
    case "EADDRINUSE":
      return new StartupError(`${where}: address already in use: another process listens there (EADDRINUSE)`, { cause: error });
    case "EACCES":
      return new StartupError(`${where}: permission denied: ports below 1024 need privileges (EACCES)`, { cause: error });
    case "EADDRNOTAVAIL":
      return new StartupError(`HOST ${options.host}: not an address of this machine (EADDRNOTAVAIL)`, { cause: error });
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError(`HOST ${options.host}: name not found (${error.code})`, { cause: error });
    default:
      return error;
  }
}
