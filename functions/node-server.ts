import type { Server as HttpServer, ServerResponse } from "node:http";
import { type AddressInfo, Server as NetServer } from "node:net";
import { createAdaptorServer, type HttpBindings, type ServerType } from "@hono/node-server";
import { StartupError } from "../src/errors.js";

type Fetch = (request: Request, bindings: HttpBindings) => Response | Promise<Response>;

/** How long clients may take to send a request, and how long an idle connection is kept (HTTP_*_TIMEOUT). */
export interface ConnectionTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/** The HTTP server of the Node entry, listening before the service behind it is ready. */
export interface NodeServer {
  server: ServerType;
  /** Where clients on this machine reach it, e.g. http://127.0.0.1:8787. */
  url: string;
  /** Hands requests to the service from now on. */
  serve(fetch: Fetch): void;
  /**
   * Stops taking new connections; a request that still arrives on an open one is served like the
   * rest, and every response from now on closes its connection (so each keep-alive connection
   * carries at most one more). Resolves once the requests in flight are answered and every
   * connection is closed.
   */
  drain(): Promise<void>;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Ends every connection at once (a stop past its bound). */
  closeAllConnections(): void;
}

/** Between the last answer of a drain and closing the connections left idle, for a request already on its way. */
const IDLE_GRACE_MS = 250;

/**
 * Takes the port first, so a port in use (or a host that is not this machine's) stops start-up at
 * once with one line, before the database is opened. Until `serve()` is called every request but
 * `/livez` is answered 503 "starting" (an orchestrator's startup probe waits, traffic is held off).
 * A client that sends its headers or its body too slowly is answered 408 and disconnected.
 *
 * @example
 * const http = await listen({ port: 8787, host: "127.0.0.1" }, { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
 * http.serve(runtime.app.fetch);
 * await http.drain();
 */
export async function listen(options: { port: number; host: string }, timeouts: ConnectionTimeouts): Promise<NodeServer> {
  let handler: Fetch = starting;
  let draining = false;
  const answering = new Set<ServerResponse>();
  let answered: () => void = () => undefined;
  const server = createAdaptorServer({
    fetch: (request, bindings) => {
      const { outgoing } = bindings as HttpBindings;
      // The service is whole until the drain ends: a request already on its way is answered, not
      // turned away with a 5xx, and its connection then closes.
      if (draining) outgoing.setHeader("connection", "close");
      answering.add(outgoing);
      outgoing.once("close", () => {
        answering.delete(outgoing);
        if (answering.size === 0) answered();
      });
      return handler(request, bindings as HttpBindings);
    },
    serverOptions: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // How often both timeouts are checked (Node's default, 30 s, would let a slow client stay that much longer).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenFailure(error, options)));
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === "0.0.0.0" ? "127.0.0.1" : options.host === "::" ? "::1" : options.host;
  const http = server as HttpServer;
  return {
    server,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    serve(fetch) {
      handler = fetch;
    },
    get inFlight() {
      return answering.size;
    },
    closeAllConnections() {
      http.closeAllConnections();
    },
    async drain() {
      draining = true;
      for (const outgoing of answering) if (!outgoing.headersSent) outgoing.setHeader("connection", "close");
      // net.Server's own close stops listening but, unlike http.Server's, leaves idle keep-alive
      // connections open: a client that already wrote its next request on one gets its answer
      // instead of a reset.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      if (answering.size > 0) await new Promise<void>((resolve) => (answered = resolve));
      await new Promise((resolve) => setTimeout(resolve, IDLE_GRACE_MS));
      http.closeIdleConnections();
      await closed;
    },
  };
}

function starting(request: Request): Response {
  if (new URL(request.url).pathname === "/livez") return Response.json({ status: "ok" });
  return unavailable("the service is starting; retry shortly");
}

function unavailable(message: string): Response {
  return Response.json(
    { error: { code: "unavailable", message, details: { retry_after_seconds: 1 } } },
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
