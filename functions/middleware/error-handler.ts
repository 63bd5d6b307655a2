import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import { isDatabaseUnavailable } from "../../src/db/connection-errors.js";
import { DomainError, type ErrorCode, STATUS_BY_CODE } from "../../src/errors.js";

/** Seconds a client is asked to wait when the database is unreachable (a restart, a failover). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export function errorResponse(c: Context, code: ErrorCode, message: string, details?: unknown): Response {
  const body: ErrorBody = { error: { code, message, ...(details === undefined ? {} : { details }) } };
  return c.json(body, STATUS_BY_CODE[code]);
}

/** What the API answers for an error: its code, message and details, and how long to wait before a retry. */
export interface ErrorAnswer {
  code: ErrorCode;
  message: string;
  details?: unknown;
  retryAfterSeconds?: number;
}

/**
 * The answer for any error a request (or an MCP tool call) ends in: domain errors keep their code,
 * Hono's HTTP exceptions (malformed JSON, body limit) map to the same shape, a lost or unreachable
 * database is `unavailable` with a retry delay (the request changed nothing: every write is one
 * transaction), anything else is logged and answered `internal` without internals.
 *
 * @example
 * const answer = errorAnswer(error, (message, fields) => logger.error(message, { route: "mcp", ...fields }));
 */
export function errorAnswer(error: unknown, log: (message: string, fields?: Record<string, unknown>) => void): ErrorAnswer {
  if (error instanceof DomainError) return { code: error.code, message: error.message, details: error.details };
  if (error instanceof HTTPException) {
    const code: ErrorCode =
      error.status === 413
        ? "payload_too_large"
        : error.status === 415
          ? "unsupported_media_type"
          : error.status === 404
            ? "not_found"
            : error.status < 500
              ? "invalid_request"
              : "internal";
    return { code, message: error.message || "request rejected" };
  }
  if (isDatabaseUnavailable(error)) {
    log("database unavailable", { error });
    return {
      code: "unavailable",
      message: "the database is unavailable; retry shortly",
      details: { retry_after_seconds: UNAVAILABLE_RETRY_AFTER_SECONDS },
      retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
    };
  }
  log("unhandled error", { error });
  return { code: "internal", message: "internal error" };
}

/** The app's single `onError`: the `errorAnswer` of the error, in the API's error shape and status. */
export function createErrorHandler(log: (message: string, fields?: Record<string, unknown>) => void = console.error) {
  return (error: Error, c: Context): Response => {
    const answer = errorAnswer(error, (message, fields) => log(message, { route: routePath(c, -1), ...fields }));
    if (answer.retryAfterSeconds !== undefined) c.header("retry-after", String(answer.retryAfterSeconds));
    return errorResponse(c, answer.code, answer.message, answer.details);
  };
}
