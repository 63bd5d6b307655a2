import { GoogleGenAI } from "@google/genai";

export interface GeminiOptions {
  apiKey: string;
  model: string;
  /** Overrides the API endpoint (a proxy, or the recorded-response server in tests). */
  baseUrl?: string;
  /** Milliseconds before a call is abandoned (PROVIDER_TIMEOUT). */
  timeoutMs?: number;
}

/**
 * A client of the Gemini API through `@google/genai`. The SDK's own retries stay off: a failed
 * call fails its durable step, and the pipeline retries the step with its backoff and dead letters.
 */
export function geminiClient(options: GeminiOptions): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: {
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    },
  });
}
