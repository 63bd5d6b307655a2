import { registerGauge } from "../telemetry/metrics.js";
import type { Embedder, EmbedPriority } from "./types.js";

const PRIORITIES: EmbedPriority[] = ["query", "background"];

/**
 * The embedder's queue as gauges, by priority: texts waiting, how long the oldest has waited
 * (backfill's lag behind queries), and slots busy out of all. Returns what stops them; nothing is
 * registered for an embedder without a queue.
 *
 * @example
 * const stop = registerEmbedderGauges(providers.embedder);
 */
export function registerEmbedderGauges(embedder: Embedder): () => void {
  const queue = embedder.queue;
  if (!queue) return () => undefined;
  const stops = [
    registerGauge({ name: "mnemo.embedder.waiting", description: "Texts waiting for the embedder, by priority" }, () =>
      PRIORITIES.map((priority) => ({ value: queue.stats().waiting[priority].texts, attributes: { priority } })),
    ),
    registerGauge(
      {
        name: "mnemo.embedder.oldest_wait",
        description: "How long the oldest text waiting for the embedder has waited, by priority",
        unit: "s",
      },
      () => PRIORITIES.map((priority) => ({ value: queue.stats().waiting[priority].oldestWaitMs / 1000, attributes: { priority } })),
    ),
    registerGauge({ name: "mnemo.embedder.slots", description: "The embedder's worker threads or concurrent requests, by state" }, () => {
      const stats = queue.stats();
      return [
        { value: stats.busySlots, attributes: { state: "busy" } },
        { value: stats.slots - stats.busySlots, attributes: { state: "idle" } },
      ];
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
