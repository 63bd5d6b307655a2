import { sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { connectDatabase } from "../../src/db/connect.js";
import { asBackgroundWork, createConnectionGate, currentWorkClass } from "../../src/db/connection-gate.js";

/** Work that holds the gate until the test lets it go. */
function held() {
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { done, release: () => release() };
}

const busyFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Synchronous work, as a PGlite statement is.
  }
};

describe("the embedded connection's gate", () => {
  it("hands the connection to waiting requests before background work that came first", async () => {
    const gate = createConnectionGate();
    const order: string[] = [];
    const first = held();
    const running = gate.run(() => first.done);
    const background = asBackgroundWork(() => gate.run(async () => order.push(`background:${currentWorkClass()}`)));
    const request = gate.run(async () => order.push(`request:${currentWorkClass()}`));
    expect(gate.stats().waiting).toEqual({ request: 1, background: 1 });
    first.release();
    await Promise.all([running, background, request]);
    expect(order).toEqual(["request:request", "background:background"]);
    expect(gate.stats().waited.request.grants).toBe(2);
    expect(gate.stats().waited.background.grants).toBe(1);
  });

  it("lets background work that has waited its bound go before requests that keep coming", async () => {
    let clock = 0;
    const gate = createConnectionGate({ maxBackgroundWaitMs: 100, now: () => clock });
    const order: string[] = [];
    let current = held();
    const chain: Promise<unknown>[] = [gate.run(() => current.done)];
    chain.push(asBackgroundWork(() => gate.run(async () => order.push("background"))));
    // A request is always waiting: each one that runs queues the next.
    for (let i = 0; i < 5; i++) {
      const next = held();
      chain.push(
        gate.run(async () => {
          order.push(`request ${i}`);
          await next.done;
        }),
      );
      clock += 30;
      const previous = current;
      current = next;
      previous.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    current.release();
    await Promise.all(chain);
    // 30 ms a request: the background work had waited 120 ms by the fourth hand-over.
    expect(order.indexOf("background")).toBeGreaterThan(0);
    expect(order.indexOf("background")).toBeLessThan(order.length - 1);
  });

  it("gives the event loop a turn between grants once a slice has passed, so timers fire in a busy queue", async () => {
    const gate = createConnectionGate({ sliceMs: 10 });
    let timerFiredAfter = Number.NaN;
    const started = performance.now();
    setTimeout(() => {
      timerFiredAfter = performance.now() - started;
    }, 0);
    // Fifty statements of 2 ms each, chained through promises: without a turn, the timer waits for all 100 ms.
    await Promise.all(Array.from({ length: 50 }, () => gate.run(async () => busyFor(2))));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(90);
    expect(timerFiredAfter).toBeLessThan(elapsed / 2);
  });

  it("on PGlite, a long transaction gives the event loop turns between its statements", async () => {
    const database = await connectDatabase({ dataDir: "memory://" });
    try {
      const heavy = sql`SELECT count(*) FROM generate_series(1, 100000)`;
      await database.db.execute(heavy);
      let longestGap = 0;
      let last = performance.now();
      const tick = () => {
        longestGap = Math.max(longestGap, performance.now() - last);
        last = performance.now();
      };
      const ticker = setInterval(tick, 2);
      const started = performance.now();
      await database.db.transaction(async (tx) => {
        for (let i = 0; i < 40; i++) await tx.execute(heavy);
      });
      const elapsed = performance.now() - started;
      tick();
      clearInterval(ticker);
      // The transaction took a while; the loop never went a third of it without a turn.
      expect(elapsed).toBeGreaterThan(100);
      expect(longestGap).toBeLessThan(elapsed / 3);
    } finally {
      await database.close();
    }
  });

  it("on PGlite, a request goes before the background statements queued in front of it", async () => {
    const database = await connectDatabase({ dataDir: "memory://" });
    try {
      const heavy = sql`SELECT count(*) FROM generate_series(1, 300000)`;
      await database.db.execute(heavy);
      // A background transaction holds the connection while twenty background statements and a request queue up.
      let release: (value?: unknown) => void = () => undefined;
      const holding = asBackgroundWork(() =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`SELECT 1`);
          await new Promise((resolve) => {
            release = resolve;
          });
        }),
      );
      await vi.waitFor(() => expect(database.gate?.stats().waited.background.grants).toBe(1));
      const backlog = asBackgroundWork(() => Promise.all(Array.from({ length: 20 }, () => database.db.execute(heavy))));
      await vi.waitFor(() => expect(database.gate?.stats().waiting.background).toBe(20));
      const started = performance.now();
      const request = database.db.execute(sql`SELECT 1`).then(() => performance.now() - started);
      await vi.waitFor(() => expect(database.gate?.stats().waiting.request).toBe(1));
      release();
      await Promise.all([holding, backlog]);
      const backlogMs = performance.now() - started;
      const requestMs = await request;
      // First come, first served, the request would wait for all twenty: it goes first.
      expect(requestMs).toBeLessThan(backlogMs / 5);
      expect(database.gate?.stats().waited.background.grants).toBe(21);
    } finally {
      await database.close();
    }
  });
});
