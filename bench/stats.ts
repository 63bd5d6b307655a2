/** Percentile of already-collected samples (nearest-rank). */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export interface Summary {
  name: string;
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

export function summarize(name: string, samples: number[]): Summary {
  return { name, n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99) };
}

export async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export function printTable(rows: Summary[], baseline: Summary): void {
  const format = (value: number) => value.toFixed(3).padStart(9);
  console.log(
    `${"measurement".padEnd(44)} ${"n".padStart(6)} ${"p50 ms".padStart(9)} ${"p95 ms".padStart(9)} ${"p99 ms".padStart(9)} ${"p50 ×raw".padStart(9)}`,
  );
  for (const row of rows) {
    const ratio = (row.p50 / baseline.p50).toFixed(2).padStart(9);
    console.log(`${row.name.padEnd(44)} ${String(row.n).padStart(6)} ${format(row.p50)} ${format(row.p95)} ${format(row.p99)} ${ratio}`);
  }
}
