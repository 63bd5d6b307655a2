export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFn = (message: string, fields?: Record<string, unknown>) => void;

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** One JSON line per message on stderr, so logs stay machine-readable on Node and Workers. */
export function createLogger(level: LogLevel): Logger {
  const at =
    (messageLevel: Exclude<LogLevel, "silent">): LogFn =>
    (message, fields) => {
      if (ORDER[messageLevel] < ORDER[level]) return;
      console.error(JSON.stringify({ level: messageLevel, time: new Date().toISOString(), message, ...fields }));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** The same logger in the shape the Inngest SDK expects (`info(...args)`). */
export function toVariadicLogger(logger: Logger): Record<keyof Logger, (...args: unknown[]) => void> {
  const adapt =
    (log: LogFn) =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      const message = first instanceof Error ? first.message : typeof first === "string" ? first : JSON.stringify(first);
      log(
        message,
        rest.length > 0 ? { details: rest.map((value) => (value instanceof Error ? (value.stack ?? value.message) : value)) } : undefined,
      );
    };
  return { debug: adapt(logger.debug), info: adapt(logger.info), warn: adapt(logger.warn), error: adapt(logger.error) };
}
