import { statementSummary } from "./statement-summary.js";

/** An error as logs carry it: what went wrong and where, never the values it was working on. */
export interface SerializedError {
  name: string;
  message: string;
  /** SQLSTATE, a socket error code (`ECONNREFUSED`), or a domain code. */
  code?: string;
  /** The failed statement, named (`INSERT session_events`), without its text's values or parameters. */
  statement?: string;
  /** The stack's frames only: its first line repeats the message. */
  stack?: string;
  cause?: SerializedError;
}

/** SQLSTATE class 22 (data exception) messages quote the offending value: `invalid input syntax for type uuid: "…"`. */
const QUOTES_VALUES = /^22/;

/**
 * An error made safe to log. A failed query (drizzle's `DrizzleQueryError`, whose message holds
 * the statement and its parameters — events' words among them) becomes the statement's name, with
 * its cause's SQLSTATE and message; a data exception's message, which quotes the value, is dropped; the stack
 * keeps its frames and loses its first line. Causes follow, at most four deep.
 *
 * @example
 * logger.error("append failed", { error: serializeError(error) });
 */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { name: typeof error, message: typeof error === "string" ? error : "not an Error" };
  const fields = error as Error & { code?: unknown; query?: unknown; params?: unknown };
  const code = typeof fields.code === "string" || typeof fields.code === "number" ? String(fields.code) : undefined;
  const failedQuery = typeof fields.query === "string" && "params" in fields;
  // drizzle's wrapper has no code, and its message is the statement with its parameters; a
  // driver's own error (pg, PGlite) has a SQLSTATE and the server's message.
  const message = code && QUOTES_VALUES.test(code) ? "data exception" : failedQuery && !code ? "query failed" : error.message;
  const frames = error.stack
    ?.split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 12)
    .map((line) => line.trim())
    .join("\n");
  return {
    name: error.name,
    message,
    ...(code ? { code } : {}),
    ...(failedQuery ? { statement: statementSummary(fields.query as string) } : {}),
    ...(frames ? { stack: frames } : {}),
    ...(error.cause !== undefined && depth < 4 ? { cause: serializeError(error.cause, depth + 1) } : {}),
  };
}
