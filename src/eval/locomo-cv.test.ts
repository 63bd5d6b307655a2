import { describe, expect, it } from "vitest";
import { chooseOnOne } from "./locomo-cv.js";

describe("cross-validation fold choice", () => {
  const grid = {
    0: { a: { 1000: 0.7, 2000: 0.8 }, b: { 1000: 0.9, 2000: 0.95 } },
    5: { a: { 1000: 0.75, 2000: 0.85 }, b: { 1000: 0.7, 2000: 0.8 } },
    10: { a: { 1000: 0.8, 2000: 0.8 }, b: { 1000: 0.6, 2000: 0.7 } },
  };

  it("chooses by the mean over budgets on the tuning conversation only", () => {
    // 5 and 10 tie at 0.80 on a: the smaller value wins.
    expect(chooseOnOne(grid, "a", [1000, 2000])).toBe(5);
    expect(chooseOnOne(grid, "b", [1000, 2000])).toBe(0);
    expect(chooseOnOne(grid, "a", [1000])).toBe(10);
  });
});
