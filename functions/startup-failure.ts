import { StartupError } from "../src/errors.js";

/**
 * Reports why start-up failed and sets exit code 1. A `StartupError` (a setting, a host, a
 * directory, a port — something the operator fixes) is one line without a stack, unless
 * LOG_LEVEL=debug; anything else is a fault of ours and keeps its stack. The line is a JSON log
 * line like every other, written before a logger can exist (LOG_LEVEL itself may be invalid).
 *
 * @example
 * try { await main(); } catch (error) { reportStartupFailure(error, process.env); }
 */
export function reportStartupFailure(error: unknown, source: Record<string, string | undefined>): void {
  const known = error instanceof StartupError;
  const debug = source["LOG_LEVEL"] === "debug";
  const message = error instanceof Error ? error.message : String(error);
  const line = {
    level: "error",
    time: new Date().toISOString(),
    message: `cannot start: ${message}`,
    ...((!known || debug) && error instanceof Error && error.stack ? { stack: error.stack } : {}),
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
  process.exitCode = 1;
}
