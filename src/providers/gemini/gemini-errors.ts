import { GoogleGenerativeAIFetchError } from "@google/generative-ai";
import { ProviderError } from "../types.js";

/**
 * Maps a Gemini SDK failure to a ProviderError: 429 and 5xx are retryable (429 with the server's
 * RetryInfo delay when it sends one), other 4xx are not. Network failures are retryable.
 */
export function toProviderError(error: unknown, operation: string): ProviderError {
  if (error instanceof GoogleGenerativeAIFetchError) {
    const status = error.status ?? 0;
    const retryable = status === 429 || status >= 500 || status === 0;
    return new ProviderError(`Gemini ${operation} failed with ${status}: ${error.message}`, retryable, retryDelayMs(error), {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`Gemini ${operation} failed: ${message}`, true, undefined, { cause: error });
}

function retryDelayMs(error: GoogleGenerativeAIFetchError): number | undefined {
  for (const detail of error.errorDetails ?? []) {
    const delay = detail["retryDelay"];
    if (typeof delay === "string" && /^\d+(\.\d+)?s$/.test(delay)) return Math.ceil(Number.parseFloat(delay) * 1000);
  }
  return undefined;
}
