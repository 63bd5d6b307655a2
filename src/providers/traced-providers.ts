import { SpanKind } from "@opentelemetry/api";
import { recordProviderCall } from "../telemetry/metrics.js";
import { inSpan } from "../telemetry/tracing.js";
import type { Embedder, LanguageModel } from "./types.js";

/**
 * The providers, each call a client span (`gen_ai.*` attributes: operation and model; the token
 * counts are added by the metering inside it) and a latency observation by model and outcome.
 *
 * @example
 * const { llm, embedder } = traceProviders(meterProviders(providers, meterOptions));
 */
export function traceProviders(providers: { llm: LanguageModel; embedder: Embedder }): { llm: LanguageModel; embedder: Embedder } {
  const { llm, embedder } = providers;
  const call = <T>(operation: string, model: string, work: () => Promise<T>, attributes: Record<string, number> = {}) => {
    const started = performance.now();
    let outcome: "ok" | "error" = "error";
    return inSpan(
      `${operation} ${model}`,
      { "gen_ai.operation.name": operation, "gen_ai.request.model": model, ...attributes },
      async () => {
        const result = await work();
        outcome = "ok";
        return result;
      },
      SpanKind.CLIENT,
    ).finally(() => recordProviderCall((performance.now() - started) / 1000, { model, operation, outcome }));
  };
  return {
    llm: {
      id: llm.id,
      summarize: (request) => call("summarize", llm.id, () => llm.summarize(request), { "mnemo.turns": request.turns.length }),
      extract: (request) => call("extract", llm.id, () => llm.extract(request), { "mnemo.turns": request.turns.length }),
    },
    embedder: {
      model: embedder.model,
      get dimensions() {
        return embedder.dimensions;
      },
      ...(embedder.queue ? { queue: embedder.queue } : {}),
      embed: (texts, options) => call("embeddings", embedder.model, () => embedder.embed(texts, options), { "mnemo.texts": texts.length }),
    },
  };
}
