import OpenAI from "openai";

export interface OpenAICompatibleOptions {
  /** OpenAI when unset; Ollama `http://localhost:11434/v1`, vLLM `http://host:8000/v1`, llama.cpp `http://host:8080/v1`. */
  baseUrl?: string;
  /** Local servers usually take any key. */
  apiKey?: string;
  model: string;
  /** Milliseconds before a call is abandoned (PROVIDER_TIMEOUT). */
  timeoutMs?: number;
}

/**
 * A client of an OpenAI-compatible server through the official `openai` package. Its own retries
 * stay off: a failed call fails its durable step, which the pipeline retries with its backoff.
 */
export function openAIClient(options: OpenAICompatibleOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey ?? "unused",
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    maxRetries: 0,
  });
}

/** `openai:` for OpenAI itself, else the server's host, so vectors of two servers' same-named models never mix. */
export function openAIModelId(options: OpenAICompatibleOptions): string {
  return options.baseUrl ? `openai-compatible:${new URL(options.baseUrl).host}/${options.model}` : `openai:${options.model}`;
}
