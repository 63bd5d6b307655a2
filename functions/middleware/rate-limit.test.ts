import { describe, expect, it } from "vitest";
import { TokenBuckets } from "./rate-limit.js";

describe("TokenBuckets under many callers", () => {
  it("forgets the least recently seen callers, never everyone: a caller that keeps sending stays limited", () => {
    const now = 0;
    const buckets = new TokenBuckets(60, 2, () => now, 1_000);
    const attacker = "203.0.113.7";
    expect([buckets.check(attacker), buckets.check(attacker)]).toEqual([undefined, undefined]);
    expect(buckets.check(attacker)).toBeGreaterThanOrEqual(1);
    // 100,000 distinct addresses pass by (cycling addresses once reset everyone's limits).
    for (let i = 0; i < 100_000; i++) {
      buckets.check(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (i % 500 === 0) expect(buckets.check(attacker), `after ${i} others`).toBeGreaterThanOrEqual(1);
    }
    expect(buckets.size).toBeLessThanOrEqual(1_000);
    expect(buckets.check(attacker)).toBeGreaterThanOrEqual(1);
  });

  it("refills with time, and a forgotten caller starts with a full bucket", () => {
    let now = 0;
    const buckets = new TokenBuckets(60, 1, () => now, 2);
    expect(buckets.check("a")).toBeUndefined();
    expect(buckets.check("a")).toBe(1);
    now += 1_000;
    expect(buckets.check("a")).toBeUndefined();
    expect(buckets.check("a")).toBe(1);
    buckets.check("b");
    buckets.check("c");
    expect(buckets.size).toBe(2);
    expect(buckets.wait("a")).toBeUndefined();
  });
});
