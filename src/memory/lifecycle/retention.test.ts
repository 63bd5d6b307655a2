import { describe, expect, it } from "vitest";
import { RETENTION_PRESETS, resolveParameters, retentionScore, traitLambda } from "./retention.js";

describe("retention (R1)", () => {
  it("matches hand-computed values of min(1, e^(−λd)·(1 + ln(1 + n))/5)", () => {
    expect(retentionScore({ accessCount: 0, daysSinceAccess: 0, lambda: 0.1 })).toBeCloseTo(0.2, 10);
    // e^(−1) · (1 + ln 4) / 5 = 0.367879 · 2.386294 / 5 = 0.175573
    expect(retentionScore({ accessCount: 3, daysSinceAccess: 10, lambda: 0.1 })).toBeCloseTo(0.175573, 5);
    // (1 + ln 101) / 5 = 1.1230 → capped at 1
    expect(retentionScore({ accessCount: 100, daysSinceAccess: 0, lambda: 0.1 })).toBe(1);
    // e^(−0.3·7) · 1 / 5 = 0.122456 · 0.2 = 0.024491
    expect(retentionScore({ accessCount: 0, daysSinceAccess: 7, lambda: 0.3 })).toBeCloseTo(0.024491, 5);
  });

  it("grows with use and shrinks with time", () => {
    const base = { daysSinceAccess: 5, lambda: 0.1 };
    expect(retentionScore({ ...base, accessCount: 5 })).toBeGreaterThan(retentionScore({ ...base, accessCount: 1 }));
    expect(retentionScore({ accessCount: 2, daysSinceAccess: 30, lambda: 0.1 })).toBeLessThan(
      retentionScore({ accessCount: 2, daysSinceAccess: 3, lambda: 0.1 }),
    );
  });

  it("has the presets of seed 000 §8.2 and lets parameters override them", () => {
    expect(RETENTION_PRESETS.sensitive).toEqual({ lambda: 0.3, threshold: 0.2 });
    expect(RETENTION_PRESETS.knowledge).toEqual({ lambda: 0.02, threshold: 0.02 });
    expect(resolveParameters({ preset: "high_interaction", min_age_days: 7, purge_after_days: 30 })).toEqual({
      lambda: 0.15,
      threshold: 0.15,
      minAgeDays: 7,
    });
    expect(resolveParameters({ preset: "default", lambda: 0.5, min_age_days: 1, purge_after_days: 30 })).toEqual({
      lambda: 0.5,
      threshold: 0.1,
      minAgeDays: 1,
    });
  });

  it("decays traits by subtype, slower with each reinforcement (spacing effect)", () => {
    expect(traitLambda("behavior", 0)).toBe(0.005);
    expect(traitLambda("core", 0)).toBe(0.001);
    expect(traitLambda("preference", 10)).toBeCloseTo(0.001, 10);
  });
});
