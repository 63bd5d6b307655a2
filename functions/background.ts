import type { Context } from "hono";

/**
 * Work that must finish after the response: on Workers it goes to `waitUntil`; on Node the
 * promise is tracked so shutdown (and tests) can wait for it.
 */
export class BackgroundTasks {
  private pending = new Set<Promise<unknown>>();

  constructor(private readonly log: (message: string, fields?: Record<string, unknown>) => void = console.error) {}

  run(c: Context, label: string, work: () => Promise<unknown>): void {
    const task = work().catch((error: unknown) => this.log(`${label} failed`, { error: String(error) }));
    try {
      c.executionCtx.waitUntil(task);
    } catch {
      // No execution context outside Workers; keep our own handle on the promise.
      this.pending.add(task);
      void task.finally(() => this.pending.delete(task));
    }
  }

  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
