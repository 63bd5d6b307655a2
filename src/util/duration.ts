/**
 * Milliseconds of a duration string such as "250ms", "2s", "5m", "1h", "7d" or "-12h" (the
 * configuration's duration format; the unit is required so a value is never ambiguous).
 *
 * @example
 * durationMs("2s"); // 2000
 */
export function durationMs(duration: string): number {
  const match = /^(-?)(\d+)(ms|s|m|h|d)$/.exec(duration);
  if (!match) throw new Error(`Not a duration: ${duration}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[3] as "ms" | "s" | "m" | "h" | "d"];
  return (match[1] ? -1 : 1) * Number(match[2]) * unit;
}
