import { type AddressInfo, connect, createServer, type Socket } from "node:net";

/** A loopback TCP proxy in front of a database that answers late: a Postgres "a region away". */
export interface DelayProxy {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** `databaseUrl` pointed at the proxy instead of its own host and port. */
  url(databaseUrl: string): string;
  close(): Promise<void>;
}

/**
 * Forwards every connection to `target`, and delivers every chunk the target sends `delayMs` late
 * (in order): each statement's answer, the connection's start-up too, arrives as from a server that
 * far away (one way; what the client sends goes at once, so a round trip costs `delayMs` more).
 *
 * @example
 * const proxy = await startDelayProxy({ host: "127.0.0.1", port: 5432 }, 20);
 * const far = proxy.url("postgres://postgres@127.0.0.1:5432/mnemo"); // postgres://postgres@127.0.0.1:<proxy>/mnemo
 */
export async function startDelayProxy(target: { host: string; port: number }, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const late = lateWriter(client, delayMs);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", late.write);
    upstream.on("end", late.end);
    client.on("end", () => upstream.end());
    const drop = () => {
      client.destroy();
      upstream.destroy();
      late.cancel();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", () => late.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes each chunk to `socket` `delayMs` after it was handed over, in the order handed over; `end` once all are written. */
function lateWriter(socket: Socket, delayMs: number) {
  const queue: { due: number; chunk: Buffer | undefined }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && (queue[0] as { due: number }).due <= now) {
      const { chunk } = queue.shift() as { chunk: Buffer | undefined };
      if (chunk === undefined) socket.end();
      else if (!socket.destroyed) socket.write(chunk);
    }
    schedule();
  };
  const schedule = () => {
    const next = queue[0];
    if (next && !timer) timer = setTimeout(flush, Math.max(0, next.due - performance.now()));
  };
  return {
    write: (chunk: Buffer) => {
      queue.push({ due: performance.now() + delayMs, chunk });
      schedule();
    },
    end: () => {
      if (queue.at(-1)?.chunk === undefined && queue.length > 0) return;
      queue.push({ due: performance.now() + delayMs, chunk: undefined });
      schedule();
    },
    cancel: () => {
      if (timer) clearTimeout(timer);
      queue.length = 0;
    },
  };
}
