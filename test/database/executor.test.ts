import { NonRetriableError, RetryAfterError } from "inngest";
import { afterEach, describe, expect, it } from "vitest";
import { connectDatabase } from "../../src/db/connect.js";
import { type Harness, startHarness } from "../fixtures/executor-harness.js";
import { waitUntil } from "../fixtures/wait.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("local executor", () => {
  it("memoizes completed steps and retries a failing step with backoff until it succeeds", async () => {
    const calls = { first: 0, flaky: 0 };
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "flaky", triggers: [{ event: "test/flaky" }], retries: 3 }, async ({ step }) => {
        const first = await step.run("first", () => ++calls.first);
        const second = await step.run("flaky", () => {
          calls.flaky++;
          if (calls.flaky < 3) throw new Error(`boom ${calls.flaky}`);
          return "ok";
        });
        return { first, second };
      }),
    ]);
    await harness.inngest.send({ name: "test/flaky", data: {} });
    const [run] = await harness.waitForRun("flaky", "completed");
    expect(run?.output).toEqual({ first: 1, second: "ok" });
    expect(calls).toEqual({ first: 1, flaky: 3 });
  });

  it("fails a run after its last attempt and records the error", async () => {
    let calls = 0;
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "doomed", triggers: [{ event: "test/doomed" }], retries: 1 }, async ({ step }) => {
        await step.run("always-fails", () => {
          calls++;
          throw new Error("still broken");
        });
      }),
    ]);
    await harness.inngest.send({ name: "test/doomed", data: { user_id: "u" } });
    const [run] = await harness.waitForRun("doomed", "failed");
    expect(calls).toBe(2);
    expect(JSON.stringify(run?.error)).toContain("still broken");
  });

  it("does not retry a NonRetriableError", async () => {
    let calls = 0;
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "bad-input", triggers: [{ event: "test/bad" }], retries: 4 }, async ({ step }) => {
        await step.run("validate", () => {
          calls++;
          throw new NonRetriableError("payload is invalid");
        });
      }),
    ]);
    await harness.inngest.send({ name: "test/bad", data: {} });
    await harness.waitForRun("bad-input", "failed");
    expect(calls).toBe(1);
  });

  it("waits as long as a RetryAfterError asks before retrying", async () => {
    const times: number[] = [];
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "rate-limited", triggers: [{ event: "test/429" }], retries: 2 }, async ({ step }) => {
        await step.run("call-api", () => {
          times.push(Date.now());
          if (times.length === 1) throw new RetryAfterError("rate limited", 400);
          return "done";
        });
      }),
    ]);
    await harness.inngest.send({ name: "test/429", data: {} });
    await harness.waitForRun("rate-limited", "completed");
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(350);
  });

  it("debounces events per key into one run with the latest event", async () => {
    const seen: unknown[] = [];
    harness = await startHarness((inngest) => [
      inngest.createFunction(
        { id: "debounced", triggers: [{ event: "test/tick" }], debounce: { key: "event.data.key", period: "300ms" as "1s" } },
        async ({ event }) => {
          seen.push(event.data);
          return event.data;
        },
      ),
    ]);
    for (let i = 1; i <= 5; i++) await harness.inngest.send({ name: "test/tick", data: { key: "a", n: i } });
    await harness.inngest.send({ name: "test/tick", data: { key: "b", n: 1 } });
    await harness.waitForRun("debounced", "completed", 2);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(seen).toHaveLength(2);
    expect(seen).toEqual(
      expect.arrayContaining([
        { key: "a", n: 5 },
        { key: "b", n: 1 },
      ]),
    );
  });

  it("never runs two runs of one concurrency key at once", async () => {
    let active = 0;
    let peak = 0;
    harness = await startHarness((inngest) => [
      inngest.createFunction(
        { id: "serial", triggers: [{ event: "test/serial" }], concurrency: { limit: 1, key: "event.data.key" } },
        async ({ step }) => {
          await step.run("work", async () => {
            active++;
            peak = Math.max(peak, active);
            await new Promise((resolve) => setTimeout(resolve, 50));
            active--;
          });
        },
      ),
    ]);
    await harness.inngest.send(Array.from({ length: 4 }, () => ({ name: "test/serial", data: { key: "same" } })));
    await harness.waitForRun("serial", "completed", 4);
    expect(peak).toBe(1);
  });

  it("checks an empty queue at its idle interval instead of in a loop", async () => {
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "unused", triggers: [{ event: "test/unused" }] }, async () => "never"),
    ]);
    const before = harness.executorCalls();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // idleCheckMs is 100: about 10 checks of 3 calls each. A loop that does not wait makes thousands.
    expect(harness.executorCalls() - before).toBeLessThan(100);
  });

  it("does not spin while a due run waits for its concurrency slot", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    harness = await startHarness((inngest) => [
      inngest.createFunction(
        { id: "slot", triggers: [{ event: "test/slot" }], concurrency: { limit: 1, key: "event.data.key" } },
        async ({ step }) => step.run("hold", () => held),
      ),
    ]);
    await harness.inngest.send([
      { name: "test/slot", data: { key: "same" } },
      { name: "test/slot", data: { key: "same" } },
    ]);
    const started = harness;
    await waitUntil(async () => (await started.runs("slot")).some((run) => run.status === "running"), "the first run to hold its slot");
    const before = harness.executorCalls();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const calls = harness.executorCalls() - before;
    release();
    await harness.waitForRun("slot", "completed", 2);
    // The first run renews its lease a few times; the loop checks every 100 ms at most.
    expect(calls).toBeLessThan(100);
  });

  it("sleeps, runs parallel steps, and fans out through step.sendEvent", async () => {
    const received: unknown[] = [];
    let started = 0;
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "parent", triggers: [{ event: "test/parent" }] }, async ({ step }) => {
        started = Date.now();
        const [a, b] = await Promise.all([step.run("a", () => 1), step.run("b", () => 2)]);
        await step.sleep("nap", "300ms");
        await step.sendEvent(
          "fan-out",
          [1, 2, 3].map((n) => ({ name: "test/child", data: { n } })),
        );
        return a + b;
      }),
      inngest.createFunction({ id: "child", triggers: [{ event: "test/child" }] }, async ({ event }) => {
        received.push(event.data.n);
      }),
    ]);
    await harness.inngest.send({ name: "test/parent", data: {} });
    const [parent] = await harness.waitForRun("parent", "completed");
    expect(parent?.output).toBe(3);
    expect(parent).toBeDefined();
    const { finishedAt, createdAt } = parent as { finishedAt: Date; createdAt: Date };
    expect(finishedAt.getTime() - createdAt.getTime()).toBeGreaterThanOrEqual(280);
    await harness.waitForRun("child", "completed", 3);
    expect(received.sort()).toEqual([1, 2, 3]);
    expect(started).toBeGreaterThan(0);
  });

  it("fires cron triggers", async () => {
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "every-second", triggers: [{ cron: "* * * * * *" }] }, async ({ event }) => event.name),
    ]);
    const [run] = await harness.waitForRun("every-second", "completed", 1, 3000);
    expect(run?.output).toBe("inngest/scheduled.timer");
  });

  it("refuses trigger expressions it cannot evaluate instead of ignoring them", async () => {
    await expect(
      startHarness((inngest) => [
        inngest.createFunction({ id: "filtered", triggers: [{ event: "test/x", if: "event.data.n > 1" }] }, async () => null),
      ]),
    ).rejects.toThrow(/trigger expressions are not supported/);
  });

  it("cancels the runs an event matches through cancelOn, and refuses a cancellation it cannot match", async () => {
    const ran: string[] = [];
    harness = await startHarness((inngest) => [
      inngest.createFunction(
        {
          id: "waiting",
          triggers: [{ event: "test/work" }],
          debounce: { key: "event.data.key", period: "1h" as "1s" },
          cancelOn: [{ event: "test/stop", match: "data.key" }],
        },
        async ({ event }) => void ran.push(String(event.data.key)),
      ),
    ]);
    await harness.inngest.send([
      { name: "test/work", data: { key: "a" } },
      { name: "test/work", data: { key: "b" } },
    ]);
    await harness.inngest.send({ name: "test/stop", data: { key: "a" } });
    const runs = await harness.runs("waiting");
    expect(runs.map((run) => [run.event["data"], run.status]).sort()).toEqual([
      [{ key: "a" }, "cancelled"],
      [{ key: "b" }, "queued"],
    ]);
    expect(ran).toEqual([]);
    await expect(
      startHarness((inngest) => [
        inngest.createFunction(
          { id: "odd", triggers: [{ event: "test/x" }], cancelOn: [{ event: "test/y", if: "event.data.n > async.data.n" }] },
          async () => null,
        ),
      ]),
    ).rejects.toThrow(/supports cancelOn with match/);
  });

  it("resumes a run after a restart without redoing its completed steps", async () => {
    const calls = { prepare: 0, finish: 0 };
    let releaseFirstProcess: (() => void) | undefined;
    const build = (blocking: boolean) => (inngest: Parameters<Parameters<typeof startHarness>[0]>[0]) => [
      inngest.createFunction({ id: "long", triggers: [{ event: "test/long" }] }, async ({ step }) => {
        const prepared = await step.run("prepare", () => ++calls.prepare);
        const finished = await step.run("finish", async () => {
          calls.finish++;
          if (blocking) await new Promise<void>((resolve) => (releaseFirstProcess = resolve));
          return "finished";
        });
        return { prepared, finished };
      }),
    ];
    const first = await startHarness(build(true));
    await first.inngest.send({ name: "test/long", data: {} });
    const deadline = Date.now() + 5000;
    while (calls.finish === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    // The process "crashes" while step two is in flight.
    await first.close({ waitForRuns: false, keepDatabase: true });

    harness = await startHarness(build(false), { handle: first.handle });
    const [run] = await harness.waitForRun("long", "completed");
    expect(run?.output).toEqual({ prepared: 1, finished: "finished" });
    expect(calls.prepare).toBe(1);
    expect(calls.finish).toBe(2);
    releaseFirstProcess?.();
  });

  it("a run waiting to retry keeps its delay while events for its debounce key keep arriving; the follow-up runs too", async () => {
    const calls: { n: number; at: number }[] = [];
    harness = await startHarness((inngest) => [
      inngest.createFunction(
        {
          id: "debounced-flaky",
          triggers: [{ event: "test/d" }],
          debounce: { key: "event.data.key", period: "300ms" as "1s" },
          concurrency: { limit: 1, key: "event.data.key" },
          retries: 3,
        },
        async ({ event, step }) =>
          step.run("work", () => {
            calls.push({ n: event.data.n as number, at: Date.now() });
            if (calls.length === 1) throw new RetryAfterError("busy", 1500);
            return event.data.n as number;
          }),
      ),
    ]);
    await harness.inngest.send({ name: "test/d", data: { key: "a", n: 1 } });
    while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // The first run now waits 1.5 s to retry; more events for its key arrive meanwhile, within
    // one debounce period: they make one follow-up run and must not touch the waiting one.
    for (const n of [2, 3, 4]) {
      await harness.inngest.send({ name: "test/d", data: { key: "a", n } });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const runs = await harness.waitForRun("debounced-flaky", "completed", 2);
    expect(runs.map((run) => run.output).sort()).toEqual([1, 4]);
    const first = calls.filter((call) => call.n === 1);
    expect(first).toHaveLength(2);
    expect((first[1]?.at as number) - (first[0]?.at as number)).toBeGreaterThanOrEqual(1400);
    expect((await harness.runs("debounced-flaky")).every((run) => run.status === "completed")).toBe(true);
  });

  it("starts cleanly after a crash that left a run mid-step and a follow-up queued for the same key, and finishes both", async () => {
    const done: number[] = [];
    let block = true;
    const build = (inngest: Parameters<Parameters<typeof startHarness>[0]>[0]) => [
      inngest.createFunction(
        {
          id: "keyed",
          triggers: [{ event: "test/k" }],
          debounce: { key: "event.data.key", period: "100ms" as "1s" },
          concurrency: { limit: 1, key: "event.data.key" },
        },
        async ({ event, step }) =>
          step.run("work", async () => {
            if (block) await new Promise<never>(() => undefined);
            done.push(event.data.n as number);
            return event.data.n as number;
          }),
      ),
    ];
    const first = await startHarness(build);
    await first.inngest.send({ name: "test/k", data: { key: "a", n: 1 } });
    while ((await first.runs("keyed")).every((run) => run.status !== "running")) await new Promise((resolve) => setTimeout(resolve, 20));
    await first.inngest.send({ name: "test/k", data: { key: "a", n: 2 } });
    await first.close({ waitForRuns: false, keepDatabase: true });

    block = false;
    harness = await startHarness(build, { handle: first.handle });
    const runs = await harness.waitForRun("keyed", "completed", 2);
    expect(runs.map((run) => run.output).sort()).toEqual([1, 2]);
    expect(done.sort()).toEqual([1, 2]);
  });

  it("holds a concurrency limit across two executors sharing one database", async () => {
    let active = 0;
    let peak = 0;
    let finished = 0;
    const build = (inngest: Parameters<Parameters<typeof startHarness>[0]>[0]) => [
      inngest.createFunction(
        { id: "shared", triggers: [{ event: "test/shared" }], concurrency: { limit: 1, key: "event.data.key" } },
        async ({ step }) =>
          step.run("work", async () => {
            active++;
            peak = Math.max(peak, active);
            await new Promise((resolve) => setTimeout(resolve, 30));
            active--;
            finished++;
          }),
      ),
    ];
    harness = await startHarness(build);
    // The second "process": its own executor and, on Postgres, its own connection pool.
    const handle = harness.url ? await connectDatabase({ url: harness.url }) : harness.handle;
    const second = await startHarness(build, { handle, ...(harness.url ? { url: harness.url } : {}) });
    try {
      const events = Array.from({ length: 12 }, () => ({ name: "test/shared", data: { key: "same" } }));
      await Promise.all([harness.inngest.send(events), second.inngest.send(events)]);
      await harness.waitForRun("shared", "completed", 24);
      expect(finished).toBe(24);
      expect(peak).toBe(1);
    } finally {
      await second.close({ keepDatabase: true });
      if (harness.url) await handle.close();
    }
  });
});
