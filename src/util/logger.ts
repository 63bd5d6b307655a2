import { isSpanContextValid, trace } from "@opentelemetry/api";
import { logContext } from "./log-context.js";
import { serializeError } from "./safe-error.js";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFn = (message: string, fields?: Record<string, unknown>) => void;

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * One JSON line per message on stderr, so logs stay machine-readable on Node and Workers. Every
 * line carries the fields of the `withLogContext` it is written in (the request id) and the trace
 * and span ids of the active span; an `Error` among the fields is written by `serializeError`
 * (name, message, code, the failed statement's name, stack frames — never a query's parameters).
 *
 * @example
 * const logger = createLogger("info");
 * logger.warn("database connection lost", { error });
 */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => console.error(line)): Logger {
  const at =
    (messageLevel: Exclude<LogLevel, "silent">): LogFn =>
    (message, fields) => {
      if (ORDER[messageLevel] < ORDER[level]) return;
      const span = trace.getActiveSpan()?.spanContext();
      write(
        JSON.stringify({
          level: messageLevel,
          time: new Date().toISOString(),
          message,
          ...logContext(),
          ...(span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {}),
          ...(fields ? loggable(fields) : {}),
        }),
      );
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function loggable(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) out[name] = value instanceof Error ? serializeError(value) : value;
  return out;
}

/** A value the SDK hands the logger, its errors made safe: an error, or an object holding errors by name (`{ err }`). */
function loggableValue(value: unknown): unknown {
  if (value instanceof Error) return serializeError(value);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? loggable(value as Record<string, unknown>) : value;
}

/** The same logger in the shape the Inngest SDK expects (`info(...args)`); its errors are made safe like any other. */
export function toVariadicLogger(logger: Logger): Record<keyof Logger, (...args: unknown[]) => void> {
  const adapt =
    (log: LogFn) =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      // A drizzle query error's own fields are its statement and parameters (events' words): an
      // object the SDK logs, such as `{ err }`, is made safe before it is written.
      const message =
        first instanceof Error ? serializeError(first).message : typeof first === "string" ? first : JSON.stringify(loggableValue(first));
      const details = [...(first instanceof Error ? [first] : []), ...rest].map(loggableValue);
      log(message, details.length > 0 ? { details } : undefined);
    };
  return { debug: adapt(logger.debug), info: adapt(logger.info), warn: adapt(logger.warn), error: adapt(logger.error) };
}
