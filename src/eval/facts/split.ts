import { createHash } from "node:crypto";

export const PARTS = ["tuning", "held-out"] as const;
export type Part = (typeof PARTS)[number];

/** The share of units set aside, scored only at the end. */
const HELD_OUT_PERCENT = 40;

/**
 * Which part a unit of the fact sets belongs to, fixed by a hash of its name before any rule was
 * tuned: a turn of LoCoMo or LongMemEval (`locomo/Caroline/D3:1`), a whole case of the fresh sets
 * (`fresh/relocation-2`), so a change of state is judged with the turns that set it up.
 *
 * @example
 * partOf("fresh/relocation-2") // → "tuning" or "held-out", the same on every machine, forever
 */
export function partOf(unit: string): Part {
  const bucket = Number.parseInt(createHash("sha256").update(`facts-split:${unit}`).digest("hex").slice(0, 8), 16) % 100;
  return bucket < HELD_OUT_PERCENT ? "held-out" : "tuning";
}
