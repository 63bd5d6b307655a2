import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { type RunningService, startService } from "../fixtures/service-process.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * Clients that send too slowly, or go away mid-upload, against the built service: a socket that
 * trickles its headers or its body is closed after HTTP_HEADERS_TIMEOUT / HTTP_REQUEST_TIMEOUT
 * (Node's defaults would keep it a minute and five), and an upload the client abandons is logged
 * as a client abort at info, never as a database outage at error.
 */
let database: TestDatabase;
let service: RunningService;
beforeAll(async () => {
  database = await freshDatabase();
  service = await startService({ ...database.env, HTTP_HEADERS_TIMEOUT: "1s", HTTP_REQUEST_TIMEOUT: "2s" }, 300_000);
}, 300_000);
afterAll(async () => {
  service?.kill();
  await database?.drop();
});

/** Opens a socket to the service and resolves once connected; `closedAfter()` resolves with ms from open to close. */
async function open(): Promise<{ socket: Socket; closedAfter: Promise<number> }> {
  const { hostname, port } = new URL(service.url);
  const socket = connect({ host: hostname, port: Number(port) });
  const opened = performance.now();
  const closedAfter = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now() - opened)));
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, closedAfter };
}

/** Writes `chunk` every `everyMs` until the socket closes. */
function trickle(socket: Socket, chunk: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded) clearInterval(timer);
    else socket.write(chunk);
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
}

/** Well past both timeouts (and their 1 s check), far below Node's defaults of 60 s and 300 s. */
const CLOSED_WITHIN_MS = 10_000;

describe("slow and vanishing clients", () => {
  it("closes a connection whose headers never end", async () => {
    const { socket, closedAfter } = await open();
    socket.write("GET /livez HTTP/1.1\r\nHost: localhost\r\n");
    trickle(socket, "x-slow: 1\r\n", 300);
    const ms = await Promise.race([
      closedAfter,
      new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 30_000)),
    ]);
    socket.destroy();
    expect(ms).toBeLessThan(CLOSED_WITHIN_MS);
  });

  it("closes a connection whose body never ends", async () => {
    const { socket, closedAfter } = await open();
    socket.write("POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{");
    trickle(socket, " ", 300);
    const ms = await Promise.race([
      closedAfter,
      new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 30_000)),
    ]);
    socket.destroy();
    expect(ms).toBeLessThan(CLOSED_WITHIN_MS);
  });

  it("logs an abandoned upload as a client abort at info, not as a database outage", async () => {
    const linesBefore = service.lines.length;
    const { socket } = await open();
    socket.write(
      'POST /v1/sessions HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"user_id": "abort-',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    await waitUntil(() => service.lines.slice(linesBefore).some((line) => line.includes("client closed")), "the abort's log line", 30_000);
    const lines = service.lines.slice(linesBefore).map((line) => JSON.parse(line) as { level: string; message: string });
    expect(lines.filter((line) => line.level === "error" || line.level === "warn")).toEqual([]);
    expect(lines.find((line) => line.message.includes("client closed"))?.level).toBe("info");
  });
});
