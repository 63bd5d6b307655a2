import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEmbeddingQueue } from "./embedding-queue.js";
import { type EmbedPriority, ProviderError } from "./types.js";

/** A batch the test answers by hand: what was sent, on which slot, at which priority. */
interface Call {
  texts: string[];
  slot: number;
  priority: EmbedPriority;
  answer(): void;
  fail(error: Error): void;
}

/** A queue whose batches wait for the test to answer them, with the clock under the test's hand. */
function harness(options: {
  slots: number;
  maxBatchTexts?: number;
  maxPaddedChars?: number;
  maxBackgroundWaitMs?: number;
  maxRateLimitRetries?: number;
}) {
  const calls: Call[] = [];
  const queue = createEmbeddingQueue({
    slots: options.slots,
    maxBatchTexts: options.maxBatchTexts ?? 16,
    ...(options.maxBackgroundWaitMs !== undefined ? { maxBackgroundWaitMs: options.maxBackgroundWaitMs } : {}),
    ...(options.maxRateLimitRetries !== undefined ? { maxRateLimitRetries: options.maxRateLimitRetries } : {}),
    ...(options.maxPaddedChars !== undefined ? { maxPaddedChars: options.maxPaddedChars } : {}),
    now: () => Date.now(),
    run: (texts, slot, priority) =>
      new Promise((resolve, reject) => {
        const call: Call = {
          texts,
          slot,
          priority,
          answer: () => {
            done.add(call);
            resolve(texts.map((text) => [text.length]));
          },
          fail: (error) => {
            done.add(call);
            reject(error);
          },
        };
        calls.push(call);
      }),
  });
  const done = new Set<Call>();
  /** The calls not yet answered or failed, oldest first. */
  const open = () => calls.filter((call) => !done.has(call));
  const answer = async (call: Call | undefined) => {
    if (!call) throw new Error("no call to answer");
    call.answer();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { queue, calls, open, answer };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the embedding queue", () => {
  it("sends a waiting query before background texts that waited longer", async () => {
    const { queue, calls, answer } = harness({ slots: 1 });
    const first = queue.embed(["backfill one"], "background");
    const second = queue.embed(["backfill two"], "background");
    vi.advanceTimersByTime(100);
    const query = queue.embed(["where?"], "query");
    expect(calls.map((call) => call.texts)).toEqual([["backfill one"]]);
    await answer(calls[0]);
    expect(calls[1]).toMatchObject({ texts: ["where?"], priority: "query" });
    await answer(calls[1]);
    expect(calls[2]).toMatchObject({ texts: ["backfill two"], priority: "background" });
    await answer(calls[2]);
    expect(await Promise.all([first, second, query])).toEqual([[[12]], [[12]], [[6]]]);
    const stats = queue.stats();
    expect(stats.served.query).toMatchObject({ texts: 1, batches: 1 });
    expect(stats.served.background).toMatchObject({ texts: 2, batches: 2 });
  });

  it("lets background texts that have waited their bound take the next slot while queries keep coming", async () => {
    const { queue, calls, open, answer } = harness({ slots: 1, maxBackgroundWaitMs: 1000 });
    void queue.embed(["q0"], "query");
    const backfill = queue.embed(["late"], "background");
    // A query arrives every 100 ms and each takes 100 ms: without a bound, backfill would wait forever.
    for (let i = 1; i <= 9; i++) {
      vi.advanceTimersByTime(100);
      void queue.embed([`q${i}`], "query");
      await answer(open()[0]);
      expect(open()[0]?.priority).toBe("query");
    }
    vi.advanceTimersByTime(100);
    void queue.embed(["q10"], "query");
    await answer(open()[0]);
    // 1,000 ms have passed: the backfill goes before the query waiting beside it.
    expect(open()[0]).toMatchObject({ texts: ["late"], priority: "background" });
    await answer(open()[0]);
    expect(await backfill).toEqual([[4]]);
    expect(open()[0]?.texts).toEqual(["q10"]);
    expect(calls.filter((call) => call.priority === "background")).toHaveLength(1);
  });

  it("keeps the last free slot for queries while queries are coming, and gives every slot to background when they are not", async () => {
    const { queue, open, answer } = harness({ slots: 2, maxBatchTexts: 1 });
    void queue.embed(["q"], "query");
    await answer(open()[0]);
    void queue.embed(["b1", "b2", "b3"], "background");
    // One slot takes background work; the other stays free for the next query.
    expect(open().map((call) => call.texts)).toEqual([["b1"]]);
    const query = queue.embed(["q2"], "query");
    expect(open().map((call) => call.texts)).toEqual([["b1"], ["q2"]]);
    await answer(open()[1]);
    expect(await query).toEqual([[2]]);
    // A second later no query has come: background takes both slots.
    vi.advanceTimersByTime(1000);
    await answer(open()[0]);
    expect(open().map((call) => call.texts)).toEqual([["b2"], ["b3"]]);
  });

  it("splits a long request into batches, carries short ones together, and gives each its vectors in order", async () => {
    const { queue, calls, open, answer } = harness({ slots: 1, maxBatchTexts: 4 });
    const blocker = queue.embed(["x"], "background");
    const long = queue.embed(["a", "bb", "ccc", "dddd", "eeeee", "ffffff"], "background");
    const short = queue.embed(["gg"], "background");
    const other = queue.embed(["hhh", "iiii"], "background");
    while (open().length > 0) await answer(open()[0]);
    expect(calls.map((call) => call.texts)).toEqual([["x"], ["a", "bb", "ccc", "dddd"], ["eeeee", "ffffff", "gg"], ["hhh", "iiii"]]);
    expect(await Promise.all([blocker, long, short, other])).toEqual([[[1]], [[1], [2], [3], [4], [5], [6]], [[2]], [[3], [4]]]);
  });

  it("for a padding model, groups a request's texts by length and keeps a batch within its padded size", async () => {
    const { queue, calls, open, answer } = harness({ slots: 1, maxBatchTexts: 4, maxPaddedChars: 40 });
    const blocker = queue.embed(["x"], "background");
    const long = "l".repeat(30);
    // Four short texts and a long one among them: the long one goes alone, the short ones together.
    const mixed = queue.embed(["aa", "bbb", long, "c", "dddd"], "background");
    const after = queue.embed(["ee"], "background");
    while (open().length > 0) await answer(open()[0]);
    expect(calls.map((call) => call.texts)).toEqual([["x"], ["c", "aa", "bbb", "dddd"], [long], ["ee"]]);
    // Each caller gets its vectors in the order it gave its texts.
    expect(await mixed).toEqual([[2], [3], [30], [1], [4]]);
    expect(await Promise.all([blocker, after])).toEqual([[[1]], [[2]]]);
  });

  it("fails a whole request when one of its batches fails, drops its other batches, and serves the rest", async () => {
    const { queue, calls, open, answer } = harness({ slots: 1, maxBatchTexts: 2 });
    const doomed = queue.embed(["a", "b", "c", "d"], "background");
    const bystander = queue.embed(["e"], "background");
    open()[0]?.fail(new Error("model failed"));
    await expect(doomed).rejects.toThrow("model failed");
    await vi.advanceTimersByTimeAsync(0);
    expect(open().map((call) => call.texts)).toEqual([["e"]]);
    await answer(open()[0]);
    expect(await bystander).toEqual([[1]]);
    expect(calls).toHaveLength(2);
  });

  it("holds every slot back for a 429's delay, sends the batch again first, and fails a query that would wait too long", async () => {
    const { queue, open, answer } = harness({ slots: 2, maxBatchTexts: 8 });
    const backfill = queue.embed(["b1"], "background");
    const query = queue.embed(["q1"], "query");
    const [first, second] = open();
    first?.fail(new ProviderError("429", true, 500, { rateLimited: true }));
    await vi.advanceTimersByTimeAsync(0);
    // Paused: a query that arrives now waits, though a slot is free.
    const waitingQuery = queue.embed(["q2"], "query");
    expect(open()).toHaveLength(1);
    expect(queue.stats().rateLimitedForMs).toBeGreaterThan(0);
    await answer(second);
    expect(await query).toEqual([[2]]);
    expect(open()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(500);
    // After the delay the waiting query goes first (and the other slot stays free for queries),
    // then the batch sent again.
    expect(open().map((call) => call.texts)).toEqual([["q2"]]);
    await answer(open()[0]);
    expect(open().map((call) => call.texts)).toEqual([["b1"]]);
    await answer(open()[0]);
    expect(await Promise.all([backfill, waitingQuery])).toEqual([[[2]], [[2]]]);
    // A 429 asking for a minute: a query does not wait for it (recall goes on without its vector).
    const impatient = queue.embed(["q3"], "query");
    open()[0]?.fail(new ProviderError("429", true, 60_000, { rateLimited: true }));
    await expect(impatient).rejects.toThrow("429");
  });

  it("gives up on a background batch after its retries, doubling the pause when the provider names none", async () => {
    const { queue, open } = harness({ slots: 1, maxRateLimitRetries: 2 });
    const backfill = queue.embed(["b"], "background");
    const outcome = backfill.catch((error: unknown) => error);
    const pauses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      open()[0]?.fail(new ProviderError("429", true, undefined, { rateLimited: true }));
      await vi.advanceTimersByTimeAsync(0);
      pauses.push(queue.stats().rateLimitedForMs);
      await vi.advanceTimersByTimeAsync(queue.stats().rateLimitedForMs);
    }
    expect(pauses).toEqual([1000, 2000, 4000]);
    expect(await outcome).toBeInstanceOf(ProviderError);
    expect(open()).toHaveLength(0);
  });
});
