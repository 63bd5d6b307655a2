import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/database.js";
import { type Harness, startHarness } from "../fixtures/executor-harness.js";
import { waitUntil } from "../fixtures/wait.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

type Build = Parameters<typeof startHarness>[0];

async function memoized(target: Harness): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(target.handle.db, sql`SELECT name FROM executor_steps ORDER BY position`);
  return rows.map((row) => row.name);
}

/** A promise and the function that resolves it, for holding a step until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("local executor with checkpointed steps", () => {
  it("runs a run's steps in one serve call, each stored before the next one starts", async () => {
    const seenBefore: string[][] = [];
    let probe: Harness | undefined;
    const build: Build = (inngest) => [
      inngest.createFunction({ id: "five-steps", triggers: [{ event: "test/five" }] }, async ({ step }) => {
        let total = 0;
        for (let index = 0; index < 5; index++) {
          total += await step.run(`step-${index}`, async () => {
            seenBefore.push(await memoized(probe as Harness));
            return index;
          });
        }
        return { total };
      }),
    ];
    harness = await startHarness(build);
    probe = harness;
    await harness.inngest.send({ name: "test/five", data: {} });
    const [run] = await harness.waitForRun("five-steps", "completed");
    expect(run?.output).toEqual({ total: 10 });
    // Each step found every earlier one already memoized: a crash at any point loses at most the step in flight.
    expect(seenBefore).toEqual([0, 1, 2, 3, 4].map((index) => Array.from({ length: index }, (_, earlier) => `step-${earlier}`)));
    expect(harness.serveCalls()).toBe(1);
  });

  it("takes one serve call per step when the client does not checkpoint, with the same outcome", async () => {
    harness = await startHarness(
      (inngest) => [
        inngest.createFunction({ id: "three-steps", triggers: [{ event: "test/three" }] }, async ({ step }) => {
          const values = [await step.run("a", () => 1), await step.run("b", () => 2), await step.run("c", () => 3)];
          return values;
        }),
      ],
      { checkpointing: false },
    );
    await harness.inngest.send({ name: "test/three", data: {} });
    const [run] = await harness.waitForRun("three-steps", "completed");
    expect(run?.output).toEqual([1, 2, 3]);
    expect(harness.serveCalls()).toBe(4);
  });

  it("hands a run back after the step it is in when stopping with releaseRuns; the next start resumes at the step after", async () => {
    const calls = { first: 0, second: 0, third: 0 };
    const held = gate();
    const build =
      (hold: boolean): Build =>
      (inngest) => [
        inngest.createFunction({ id: "released", triggers: [{ event: "test/release" }] }, async ({ step }) => {
          await step.run("first", () => ++calls.first);
          await step.run("second", async () => {
            calls.second++;
            if (hold) await held.opened;
            return "second";
          });
          return step.run("third", () => ++calls.third);
        }),
      ];
    const first = await startHarness(build(true));
    await first.inngest.send({ name: "test/release", data: {} });
    await waitUntil(() => calls.second === 1, "the second step to start");
    // What a stop past its bound names: the run, for how long, and the step it last finished.
    await waitUntil(() => first.executor.describeInFlight().some((run) => run.includes('after step "first"')), "the first checkpoint");
    expect(first.executor.describeInFlight()).toEqual([expect.stringMatching(/released run \S+ for \d+ ms, after step "first"$/)]);
    const stopped = first.executor.stop({ releaseRuns: true });
    held.open();
    await stopped;
    expect(calls).toEqual({ first: 1, second: 1, third: 0 });
    expect(await memoized(first)).toEqual(["first", "second"]);
    expect((await first.runs("released"))[0]?.status).toBe("queued");
    await first.close({ keepDatabase: true });

    harness = await startHarness(build(false), { handle: first.handle });
    const [run] = await harness.waitForRun("released", "completed");
    expect(run?.output).toBe(1);
    expect(calls).toEqual({ first: 1, second: 1, third: 1 });
  });

  it("stops claiming once a stop with releaseRuns begins, while runs are still queued", async () => {
    let started = 0;
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "stream", triggers: [{ event: "test/stream" }] }, async ({ step }) =>
        step.run("only", async () => {
          started++;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }),
      ),
    ]);
    await harness.inngest.send(Array.from({ length: 60 }, (_, index) => ({ name: "test/stream", data: { index } })));
    // Stopped mid-stream, while the loop claims a run for each slot that frees up.
    await waitUntil(() => started >= 6, "a few runs to have run");
    const executor = harness.executor;
    const stopped = await Promise.race([
      executor.stop({ releaseRuns: true }).then(() => "stopped" as const),
      new Promise<"still claiming">((resolve) => setTimeout(() => resolve("still claiming"), 3_000)),
    ]);
    // A run handed back at its first check is due again at once: a loop that went on claiming
    // after the stop would take it, hand it back, and take it again until the stop's bound.
    expect(stopped).toBe("stopped");
    expect(executor.inFlight).toBe(0);
    const runs = await harness.runs("stream");
    expect(runs.filter((run) => run.status !== "completed" && run.status !== "queued")).toEqual([]);
    expect(runs).toHaveLength(60);
  });

  it("stops a run at its next checkpoint once its claim is gone, writing nothing more for it", async () => {
    const calls = { first: 0, second: 0 };
    const held = gate();
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "erased", triggers: [{ event: "test/erased" }] }, async ({ step }) => {
        await step.run("first", async () => {
          calls.first++;
          await held.opened;
        });
        await step.run("second", () => ++calls.second);
      }),
    ]);
    await harness.inngest.send({ name: "test/erased", data: {} });
    await waitUntil(() => calls.first === 1, "the first step to start");
    // What an erasure does to its user's runs while one is in flight.
    await harness.handle.db.execute(sql`DELETE FROM executor_runs`);
    held.open();
    await waitUntil(() => harness?.executor.inFlight === 0, "the run to let go");
    expect(calls).toEqual({ first: 1, second: 0 });
    expect(await memoized(harness)).toEqual([]);
    expect(await harness.runs("erased")).toEqual([]);
  });

  it("holds a concurrency limit with the env scope across the functions that share its key", async () => {
    let active = 0;
    let peak = 0;
    const work = async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 40));
      active--;
    };
    const shared = { limit: 1, key: '"pair:" + event.data.key', scope: "env" as const };
    harness = await startHarness((inngest) => [
      inngest.createFunction({ id: "left", triggers: [{ event: "test/left" }], concurrency: shared }, async ({ step }) =>
        step.run("w", work),
      ),
      inngest.createFunction({ id: "right", triggers: [{ event: "test/right" }], concurrency: shared }, async ({ step }) =>
        step.run("w", work),
      ),
      // The same key per function: these two may overlap with each other, never with themselves.
      inngest.createFunction(
        { id: "own", triggers: [{ event: "test/left" }], concurrency: { limit: 1, key: '"pair:" + event.data.key' } },
        async ({ step }) => step.run("w", () => new Promise((resolve) => setTimeout(resolve, 10))),
      ),
    ]);
    const events = Array.from({ length: 4 }, () => [
      { name: "test/left", data: { key: "same" } },
      { name: "test/right", data: { key: "same" } },
    ]).flat();
    await harness.inngest.send(events);
    await harness.waitForRun("left", "completed", 4);
    await harness.waitForRun("right", "completed", 4);
    await harness.waitForRun("own", "completed", 4);
    expect(peak).toBe(1);
  });
});
