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

type Log = (message: string, fields?: Record<string, unknown>) => void;

/**
 * The app's single `onError`: the `errorAnswer` of the error, in the API's error shape and status;
 * a request whose client went away mid-upload is logged at `info` as such (no one reads its answer,
 * and its ECONNRESET would otherwise read as a lost database connection).
 */
export function createErrorHandler(log: Log = console.error, info: Log = console.info) {
  return (error: Error, c: Context): Response => {
    if (isClientAbort(error, c.req.raw)) {
      info("client closed the connection before the request was read", { route: routePath(c, -1) });
      return errorResponse(c, "invalid_request", "the client closed the connection");
    }
    const answer = errorAnswer(error, (message, fields) => log(message, { route: routePath(c, -1), ...fields }));
    if (answer.retryAfterSeconds !== undefined) c.header("retry-after", String(answer.retryAfterSeconds));
    return errorResponse(c, answer.code, answer.message, answer.details);
  };
}

/**
 * Whether the request failed because its client went away while sending the body: Node's
 * `IncomingMessage` then errors with `aborted` (code ECONNRESET — which alone would read as a lost
 * database connection), and the adapter aborts the request's signal.
 */
function isClientAbort(error: unknown, request: Request): boolean {
  if (request.signal.aborted) return true;
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 8; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === "ECONNRESET" && message === "aborted") return true;
    if (code === "ERR_STREAM_PREMATURE_CLOSE") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
