import { describe, expect, it } from "vitest";
import { ErasureScrub, type ScrubPass } from "./erasure-scrub.js";

const done: ScrubPass = { rewritten: ["sessions"], vacuumed: [], busy: [], checkpointed: true };

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
