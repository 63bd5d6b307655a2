import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listen, type NodeServer } from "./node-server.js";

/** One GET on `agent` (false: a connection of its own); resolves with the status and the `connection` header, or the socket error's code. */
function get(
  url: string,
  path: string,
  agent: Agent | false,
): Promise<{ status: number; connection: string | undefined } | { code: string }> {
  return new Promise((resolve) => {
    const sent = httpRequest(`${url}${path}`, { agent }, (response) => {
      response.resume();
      response.once("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    });
    sent.once("error", (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? String(error) }));
    sent.end();
  });
}

let server: NodeServer | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.server.close();
  server = undefined;
});

describe("the Node server's drain", () => {
  it("accepts through the delay, then refuses; resets no connection it accepted, idle, silent or in flight", async () => {
    // Keep-alive long enough that the clients' agents (told the timeout, and leaving a second's margin) still reuse their connection after the delay.
    const http = await listen({ port: 0, host: "127.0.0.1" }, { headersMs: 2_000, requestMs: 5_000, keepAliveMs: 4_000 });
    server = http;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    http.serve(async (request) => {
      if (new URL(request.url).pathname === "/slow") await gate;
      return new Response("ok");
    });

    // Before the drain: a keep-alive connection, left idle, and one request in flight.
    const reused = new Agent({ keepAlive: true, maxSockets: 1 });
    const idle = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(http.url, "/", reused)).toEqual({ status: 200, connection: "keep-alive" });
    expect(await get(http.url, "/", idle)).toEqual({ status: 200, connection: "keep-alive" });
    const slow = get(http.url, "/slow", false);
    await expect.poll(() => http.inFlight).toBe(1);

    let stoppedListening = false;
    const drained = http.drain({
      acceptForMs: 800,
      onStopListening: () => {
        stoppedListening = true;
      },
    });
    // During the delay a new connection is served, and closed by its answer.
    expect(await get(http.url, "/", false)).toEqual({ status: 200, connection: "close" });
    // One opened and left silent: closed once the port is shut and a grace has passed, without a reset.
    const silent = connect(Number(new URL(http.url).port), "127.0.0.1");
    const silentClosed = new Promise<{ error: string | undefined }>((resolve) => {
      let error: string | undefined;
      silent.once("error", (failure: NodeJS.ErrnoException) => {
        error = failure.code;
      });
      silent.once("close", () => resolve({ error }));
    });
    expect(stoppedListening).toBe(false);

    await expect.poll(() => stoppedListening, { timeout: 5_000 }).toBe(true);
    expect(await get(http.url, "/", false)).toEqual({ code: "ECONNREFUSED" });
    // The connection idle since before the drain is still open: its next request is answered, then it closes.
    expect(await get(http.url, "/", reused)).toEqual({ status: 200, connection: "close" });
    release();
    expect(await slow).toEqual({ status: 200, connection: "close" });
    expect(await silentClosed).toEqual({ error: undefined });

    // The other idle connection ends by its keep-alive timeout, which its client was told; then the drain is done.
    await drained;
    await expect.poll(() => http.connections).toBe(0);
    reused.destroy();
    idle.destroy();
  });

  it("resets none of the clients that go on connecting through the close, on a busy event loop: each is answered, then refused", async () => {
    const http = await listen({ port: 0, host: "127.0.0.1" }, { headersMs: 2_000, requestMs: 5_000, keepAliveMs: 4_000 });
    server = http;
    // Each answer holds the event loop a few milliseconds, as a loaded service's requests do: new
    // connections wait in the kernel's queue meanwhile, where closing the port would reset them.
    http.serve(() => {
      const until = performance.now() + 3;
      while (performance.now() < until);
      return new Response("ok");
    });
    const outcomes = { answered: 0, refused: 0, reset: [] as string[] };
    const client = async () => {
      for (;;) {
        const outcome = await get(http.url, "/", false);
        if ("status" in outcome) outcomes.answered++;
        else if (outcome.code === "ECONNREFUSED") {
          outcomes.refused++;
          return;
        } else outcomes.reset.push(outcome.code);
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await expect.poll(() => outcomes.answered, { timeout: 10_000 }).toBeGreaterThan(40);
    await http.drain({ acceptForMs: 300 });
    await Promise.all(clients);
    expect(outcomes).toMatchObject({ refused: 8, reset: [] });
  });

  it("with no delay stops listening at once and ends when nothing is open", async () => {
    const http = await listen({ port: 0, host: "127.0.0.1" }, { headersMs: 2_000, requestMs: 5_000, keepAliveMs: 1_500 });
    server = http;
    http.serve(() => new Response("ok"));
    let stoppedListening = false;
    await http.drain({
      acceptForMs: 0,
      onStopListening: () => {
        stoppedListening = true;
      },
    });
    expect(stoppedListening).toBe(true);
    expect(await get(http.url, "/", false)).toEqual({ code: "ECONNREFUSED" });
  });
});
