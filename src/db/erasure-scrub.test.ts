import { afterEach, describe, expect, it, vi } from "vitest";
import { ErasureScrub, type ScrubPass } from "./erasure-scrub.js";

const done: ScrubPass = { rewritten: ["sessions"], vacuumed: [], busy: [], checkpointed: true, olderSnapshots: 0 };

describe("the erasure scrub's queue", () => {
  it("runs one pass at a time, and erasures during a pass share the next one", async () => {
    const finish: Array<() => void> = [];
    let running = 0;
    let most = 0;
    const scrub = new ErasureScrub(() => {
      running++;
      most = Math.max(most, running);
      return new Promise<ScrubPass>((resolve) =>
        finish.push(() => {
          running--;
          resolve(done);
        }),
      );
    });
    const first = scrub.afterErasure();
    const second = scrub.afterErasure();
    const third = scrub.afterErasure();
    expect(second).toBe(third);
    expect(finish).toHaveLength(1);
    finish[0]?.();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The erasures that came during the first pass are covered by a second pass started after it.
    expect(finish).toHaveLength(2);
    finish[1]?.();
    await expect(second).resolves.toBe(done);
    expect(most).toBe(1);
    // Idle again: the next erasure starts a pass of its own.
    void scrub.afterErasure();
    expect(finish).toHaveLength(3);
    finish[2]?.();
  });

  it("a failed pass does not stop the next one", async () => {
    let calls = 0;
    const scrub = new ErasureScrub(async () => {
      calls++;
      if (calls === 1) throw new Error("disk full");
      return done;
    });
    const failed = scrub.afterErasure();
    const after = scrub.afterErasure();
    await expect(failed).rejects.toThrow("disk full");
    await expect(after).resolves.toBe(done);
  });
});

describe("the erasure scrub's period", () => {
  const MINUTE = 60_000;
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts at most one pass per interval: erasures within it share the pass at its end", async () => {
    vi.useFakeTimers({ now: 0 });
    const started: number[] = [];
    const scrub = new ErasureScrub(
      async () => {
        started.push(Date.now());
        return done;
      },
      { minIntervalMs: MINUTE },
    );
    await scrub.afterErasure();
    expect(started).toEqual([0]);

    await vi.advanceTimersByTimeAsync(10_000);
    const second = scrub.afterErasure();
    await vi.advanceTimersByTimeAsync(20_000);
    const third = scrub.afterErasure();
    expect(third).toBe(second);
    expect(started).toEqual([0]);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(started).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    await expect(second).resolves.toBe(done);
    expect(started).toEqual([0, MINUTE]);

    // A hundred erasures in the next interval: one more pass, a minute after the last.
    const burst = Array.from({ length: 100 }, () => scrub.afterErasure());
    await vi.advanceTimersByTimeAsync(MINUTE);
    await Promise.all(burst);
    expect(started).toEqual([0, MINUTE, 2 * MINUTE]);

    // Idle for longer than the interval: the next erasure's pass starts at once.
    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    await scrub.afterErasure();
    expect(started).toEqual([0, MINUTE, 2 * MINUTE, 7 * MINUTE]);
  });

  it("flush starts the waiting pass now (shutdown)", async () => {
    vi.useFakeTimers({ now: 0 });
    let passes = 0;
    const scrub = new ErasureScrub(
      async () => {
        passes++;
        return done;
      },
      { minIntervalMs: MINUTE },
    );
    await scrub.afterErasure();
    const waiting = scrub.afterErasure();
    await scrub.flush();
    expect(passes).toBe(2);
    await expect(waiting).resolves.toBe(done);
    // Nothing waiting: flush does nothing.
    await scrub.flush();
    expect(passes).toBe(2);
  });
});
