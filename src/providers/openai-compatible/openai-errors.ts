import { APIError } from "openai";
import { ProviderError } from "../types.js";

/**
 * Maps an `openai` SDK failure to a ProviderError: no status (connection refused, timeout), 408,
 * 409, 429 and 5xx are retryable, with the server's `retry-after-ms` or `retry-after` when it sends
 * one; other 4xx (bad key, unknown model, unsupported parameter) are not.
 */
export function toProviderError(error: unknown, operation: string): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof APIError) {
    const status = error.status;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    return new ProviderError(
      `OpenAI-compatible ${operation} failed${status ? ` with ${status}` : ""}: ${error.message}`,
      retryable,
      retryAfterMs(error.headers),
      { cause: error, rateLimited: status === 429 },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`OpenAI-compatible ${operation} failed: ${message}`, true, undefined, { cause: error });
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number(headers?.get("retry-after-ms"));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const retryAfter = headers?.get("retry-after");
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(retryAfter);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
