import { ApiError } from "@google/genai";
import { z } from "zod";
import { ProviderError } from "../types.js";

/** The part of Google's error body that says how long to wait: RetryInfo's `retryDelay` ("17s"). */
const ErrorBodySchema = z.object({
  error: z.object({ details: z.array(z.looseObject({ retryDelay: z.string().optional() })).optional() }),
});

/**
 * Maps a Gemini SDK failure to a ProviderError: 429 and 5xx are retryable (429 with the server's
 * RetryInfo delay when it sends one), other 4xx are not. Network failures and timeouts are retryable.
 */
export function toProviderError(error: unknown, operation: string): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof ApiError) {
    const retryable = error.status === 429 || error.status === 408 || error.status >= 500;
    return new ProviderError(`Gemini ${operation} failed with ${error.status}: ${error.message}`, retryable, retryDelayMs(error.message), {
      cause: error,
      rateLimited: error.status === 429,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`Gemini ${operation} failed: ${message}`, true, undefined, { cause: error });
}

/** The SDK puts the error body, as JSON, in the message. */
function retryDelayMs(message: string): number | undefined {
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    return undefined;
  }
  const parsed = ErrorBodySchema.safeParse(body);
  for (const detail of parsed.success ? (parsed.data.error.details ?? []) : []) {
    if (detail.retryDelay && /^\d+(\.\d+)?s$/.test(detail.retryDelay)) return Math.ceil(Number.parseFloat(detail.retryDelay) * 1000);
  }
  return undefined;
}
