const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of an Inngest time string such as "500ms", "2s" or "1h30m". */
export function parseTimeString(value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  const consumed = parts.map((part) => part[0]).join("");
  if (parts.length === 0 || consumed !== value) throw new Error(`not an Inngest time string: ${value}`);
  return parts.reduce((total, part) => total + Number(part[1]) * (UNIT_MS[part[2] as string] as number), 0);
}

/** When a Sleep op ends: its name is a duration or an ISO timestamp (`sleepUntil`). */
export function sleepUntil(name: string, now: number): number {
  try {
    return now + parseTimeString(name);
  } catch {
    const at = Date.parse(name);
    if (Number.isNaN(at)) throw new Error(`cannot read sleep target ${name}`);
    return at;
  }
}

/** Exponential backoff with full jitter, capped, so retries of many runs spread out. */
export function backoffMs(attempt: number, baseMs: number, capMs = 60_000, random = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
