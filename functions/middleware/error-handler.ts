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

type Log = (message: string, fields?: Record<string, unknown>) => void;

/**
 * The app's single `onError`: domain errors keep their code, Hono's HTTP exceptions (malformed
 * JSON, body limit) map to the same shape, a request whose client went away mid-upload is logged
 * at `info` as such (no one reads its answer), a lost or unreachable database is a 503 with
 * `retry-after` (the request changed nothing: every write is one transaction), anything else is
 * a logged 500 without internals.
 */
export function createErrorHandler(log: Log = console.error, info: Log = console.info) {
  return (error: Error, c: Context): Response => {
    if (error instanceof DomainError) return errorResponse(c, error.code, error.message, error.details);
    if (isClientAbort(error, c.req.raw)) {
      info("client closed the connection before the request was read", { route: routePath(c, -1) });
      return errorResponse(c, "invalid_request", "the client closed the connection");
    }
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
      return errorResponse(c, code, error.message || "request rejected");
    }
    if (isDatabaseUnavailable(error)) {
      log("database unavailable", { route: routePath(c, -1), error });
      c.header("retry-after", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      return errorResponse(c, "unavailable", "the database is unavailable; retry shortly", {
        retry_after_seconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
      });
    }
    log("unhandled error", { route: routePath(c, -1), error });
    return errorResponse(c, "internal", "internal error");
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
