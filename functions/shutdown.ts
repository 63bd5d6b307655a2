import type { Logger } from "../src/util/logger.js";

/** One stage of a stop, named for the line that reports a stop past its bound. */
export interface StopStage {
  name: string;
  run(): Promise<void>;
  /** What is still unfinished when the bound passes (e.g. "3 requests in flight"). */
  pending?(): string | undefined;
}

/**
 * Runs the stages of a stop one after another within `timeoutMs`. Returns the exit code: 0 when
 * every stage finished in time; 1 when the bound passed first (or a stage failed): what was left
 * is named in one error line and abandoned. Abandoned work is safe to lose: a durable run resumes
 * at its next start from its last memoized step, and an unanswered request changed nothing it did
 * not commit.
 *
 * @example
 * const code = await stopWithin(10_000, logger, [{ name: "requests", run: () => http.drain() }]);
 * process.exit(code);
 */
export async function stopWithin(timeoutMs: number, logger: Logger, stages: StopStage[]): Promise<number> {
  const started = performance.now();
  let current: StopStage | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<"overdue">((resolve) => {
    timer = setTimeout(() => resolve("overdue"), timeoutMs);
  });
  const work = (async () => {
    for (const stage of stages) {
      current = stage;
      await stage.run();
    }
    current = undefined;
    return "done" as const;
  })();
  try {
    const outcome = await Promise.race([work, overdue]);
    if (outcome === "done") {
      logger.info("stopped", { ms: Math.round(performance.now() - started) });
      return 0;
    }
    const left = current?.pending?.();
    logger.error(`stop exceeded SHUTDOWN_TIMEOUT (${timeoutMs} ms) while waiting for ${current?.name ?? "the stop"}; abandoning it`, {
      ...(left ? { pending: left } : {}),
    });
    return 1;
  } catch (error) {
    logger.error(`stop failed while waiting for ${current?.name ?? "the stop"}`, { error });
    return 1;
  } finally {
    clearTimeout(timer);
  }
}
