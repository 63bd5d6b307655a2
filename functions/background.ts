import type { Context } from "hono";
import { asBackgroundWork } from "../src/db/connection-gate.js";
import type { Background } from "./deps.js";

/**
 * Work that must finish after the response: on Workers it also goes to `waitUntil`; the promise
 * is always tracked, so shutdown, tests and a Worker's per-request connection can wait for it.
 * It runs as background work: on the embedded database, requests' statements go first.
 */
export class BackgroundTasks implements Background {
  private pending = new Set<Promise<unknown>>();

  constructor(private readonly log: (message: string, fields?: Record<string, unknown>) => void = console.error) {}

  run(c: Context, label: string, work: () => Promise<unknown>): void {
    // After the response: its statements on the embedded connection go after requests'.
    const task = asBackgroundWork(work).catch((error: unknown) => this.log(`${label} failed`, { error }));
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
    try {
      c.executionCtx.waitUntil(task);
    } catch {
      // No execution context outside Workers: the tracked promise is all there is.
    }
  }

  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
