import { describe, expect, it } from "vitest";
import { z } from "zod";
import { whenValid } from "./when-valid.js";

const Budget = z
  .object({ max: z.number().int().min(16), reserve: z.number().int().min(0).default(0), note: z.string().min(1).optional() })
  .refine((body) => body.reserve < body.max, { path: ["reserve"], message: "must be smaller than max", when: whenValid("max", "reserve") });
const fields = (input: unknown) => Budget.safeParse(input).error?.issues.map((issue) => issue.path.join("."));

describe("whenValid", () => {
  it("skips the comparison when a compared field failed its own check", () => {
    expect(fields({ max: -5 })).toEqual(["max"]);
    expect(fields({ max: 100, reserve: -1 })).toEqual(["reserve"]);
  });

  it("compares when both fields are valid, whatever else failed", () => {
    expect(fields({ max: 20, reserve: 20 })).toEqual(["reserve"]);
    expect(fields({ max: 20, reserve: 20, note: "" })).toEqual(["note", "reserve"]);
    expect(fields({ max: 20, reserve: 4 })).toBeUndefined();
  });

  it("runs nothing after a fatal failure, as zod does without it (the values may not exist)", () => {
    expect(fields(null)).toEqual([""]);
    expect(fields({ max: 20, reserve: 20, note: 7 })).toEqual(["note"]);
  });
});
