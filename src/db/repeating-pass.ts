import { asBackgroundWork } from "./connection-gate.js";

/**
 * Runs `pass` every `intervalMs`, as background work, one at a time (the next is timed from the end of the last, so a
 * slow pass never overlaps the next); `stop` ends the schedule once the pass in flight is done (the
 * pass is handed `stopping`, so a long one can end between its units of work). A pass that throws is handed to `failed` and the next one tries again. The timer keeps no process alive.
 *
 * @example
 * const schedule = repeatEvery(60_000, () => freezeWhereDue(db).then(() => undefined), (error) => logger.warn("failed", { error }));
 * await schedule.stop();
 */
export function repeatEvery(
  intervalMs: number,
  pass: (stopping: () => boolean) => Promise<void>,
  failed: (error: unknown) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        await asBackgroundWork(() => pass(() => stopped));
      } catch (error) {
        failed(error);
      }
      if (!stopped) timer = setTimeout(tick, intervalMs).unref();
    })();
  };
  timer = setTimeout(tick, intervalMs).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
