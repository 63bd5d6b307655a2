import { NonRetriableError, RetryAfterError } from "inngest";
import { ProviderError } from "../../src/providers/types.js";

/**
 * Turns a provider failure into what Inngest understands: a rate limit with a delay becomes
 * RetryAfterError, a request the provider will never accept becomes NonRetriableError, and
 * anything else is rethrown for the normal retry with backoff.
 */
export function toStepError(error: unknown): never {
  if (error instanceof ProviderError) {
    if (!error.retryable) throw new NonRetriableError(error.message, { cause: error });
    if (error.retryAfterMs !== undefined) throw new RetryAfterError(error.message, error.retryAfterMs, { cause: error });
  }
  throw error;
}
