import { createHash } from "node:crypto";

export const HALVES = ["tuning", "held-out"] as const;
export type Half = (typeof HALVES)[number];

/**
 * Which half of a retrieval evaluation a question belongs to, fixed by a hash of its id before any
 * figure was looked at: settings may be chosen on the tuning half only; the held-out half is
 * reported beside it, never used to choose. Independent of `src/eval/facts/split.ts` (another
 * salt, another share), so a question's half here says nothing of its turns' part there.
 *
 * @example
 * halfOf("longmemeval/9bbe84a2") // → "tuning" or "held-out", the same on every machine, forever
 */
export function halfOf(unit: string): Half {
  const bucket = Number.parseInt(createHash("sha256").update(`retrieval-split:${unit}`).digest("hex").slice(0, 8), 16) % 2;
  return bucket === 0 ? "tuning" : "held-out";
}
