/**
 * Typed domain errors. The single `onError` handler maps each `code` to an HTTP status and the
 * body `{ "error": { "code", "message", "details" } }`, so every failure has one shape.
 */
export type ErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "misdirected"
  | "rate_limited"
  | "unprocessable"
  | "unavailable"
  | "internal";

export const STATUS_BY_CODE: Record<ErrorCode, 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 421 | 422 | 429 | 500 | 503> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  misdirected: 421,
  rate_limited: 429,
  unprocessable: 422,
  internal: 500,
  unavailable: 503,
};

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const notFound = (what: string, id: string) => new DomainError("not_found", `${what} ${id} was not found`, { id });

export const unauthorized = (message: string) => new DomainError("unauthorized", message);

export const conflict = (message: string, details?: unknown) => new DomainError("conflict", message, details);

/**
 * A reason the service cannot start that its operator can fix — a setting, a host, a directory, a
 * port. Start-up reports its message as one line and exits with code 1, without a stack.
 *
 * @example
 * throw new StartupError("DATA_DIR /proc/nope: cannot create the directory (ENOENT)");
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StartupError";
  }
}
