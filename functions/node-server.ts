import type { Server as HttpServer, ServerResponse } from "node:http";
import { type AddressInfo, Server as NetServer, type Socket } from "node:net";
import { createAdaptorServer, type HttpBindings, type ServerType } from "@hono/node-server";
import { StartupError } from "../src/errors.js";
import { PortClosing } from "./port-closing.js";

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
   * Stops the server without resetting a connection it accepted: from the call on, every answer
   * closes its connection; the port keeps accepting for `acceptForMs` (load balancers stop
   * sending meanwhile), then stops listening. Resolves once the requests in flight are answered
   * and every connection has ended: by its answer, by its keep-alive timeout, or (one that never
   * carried a request) closed after a short grace.
   */
  drain(options: DrainOptions): Promise<void>;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Connections still open. */
  readonly connections: number;
  /** Ends every connection at once (a stop past its bound). */
  closeAllConnections(): void;
}

export interface DrainOptions {
  /** How long the port keeps accepting after the drain begins (SHUTDOWN_DELAY). */
  acceptForMs: number;
  /** Called once the port no longer accepts. */
  onStopListening?: () => void;
}

/**
 * After the port closes and the requests in flight are answered, how long a connection that never
 * carried a request is left open: a client the kernel accepted just before the port closed is
 * sending its request now, and closing under it would reset it.
 */
const UNUSED_GRACE_MS = 500;

/**
 * Takes the port first, so a port in use (or a host that is not this machine's) stops start-up at
 * once with one line, before the database is opened. Until `serve()` is called every request but
 * `/livez` is answered 503 "starting" (an orchestrator's startup probe waits, traffic is held off).
 * A client that sends its headers or its body too slowly is answered 408 and disconnected.
 *
 * @example
 * const http = await listen({ port: 8787, host: "127.0.0.1" }, { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
 * http.serve(runtime.app.fetch);
 * await http.drain({ acceptForMs: 5_000 });
 */
export async function listen(options: { port: number; host: string }, timeouts: ConnectionTimeouts): Promise<NodeServer> {
  let handler: Fetch = starting;
  let draining = false;
  const answering = new Set<ServerResponse>();
  const open = new Set<Socket>();
  const used = new WeakSet<Socket>();
  const changes = new Changes();
  const closing = new PortClosing();
  const server = createAdaptorServer({
    fetch: async (request, bindings) => {
      const { incoming, outgoing } = bindings as HttpBindings;
      used.add(incoming.socket);
      // The service is whole until the drain ends: a request that arrives is answered, not
      // turned away with a 5xx, and its connection then closes.
      if (draining) outgoing.setHeader("connection", "close");
      answering.add(outgoing);
      outgoing.once("close", () => {
        answering.delete(outgoing);
        changes.notify();
      });
      const response = await handler(request, bindings as HttpBindings);
      // While the port waits for a quiet moment to close, an answer would send its client to
      // connect again, into the kernel's queue that closing resets: it goes out once the port is shut.
      await closing.closed();
      return response;
    },
    serverOptions: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // How often both timeouts are checked (Node's default, 30 s, would let a slow client stay that much longer).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
    },
  });
  server.on("connection", (socket: Socket) => {
    closing.accepted();
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      changes.notify();
    });
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
    get connections() {
      return open.size;
    },
    closeAllConnections() {
      http.closeAllConnections();
    },
    async drain({ acceptForMs, onStopListening }) {
      draining = true;
      for (const outgoing of answering) if (!outgoing.headersSent) outgoing.setHeader("connection", "close");
      // Closing the port resets every connection the kernel has accepted and the process has not
      // yet taken: it closes once a balancer has stopped sending, and then at a quiet moment.
      await sleep(acceptForMs);
      // net.Server's own close stops listening but, unlike http.Server's, leaves idle keep-alive
      // connections open: a client may be writing its next request on one, and closing it under
      // that request would reset it. Each ends by its answer (which closes it) or its keep-alive
      // timeout, which the client was told of and stops reusing it before.
      let closed: Promise<void> = Promise.resolve();
      await closing.close(() => {
        closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      });
      onStopListening?.();
      await changes.until(() => answering.size === 0);
      await sleep(UNUSED_GRACE_MS);
      // A turn of the event loop first, so bytes already received are read and start their request.
      await new Promise((resolve) => setImmediate(resolve));
      for (const socket of open) if (!used.has(socket) && socket.bytesRead === 0) socket.destroy();
      await closed;
    },
  };
}

/** Lets a drain wait for a condition on the sets above, re-checked whenever one of them shrinks. */
class Changes {
  private waiters: (() => void)[] = [];
  notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
