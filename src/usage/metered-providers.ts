import { trace } from "@opentelemetry/api";
import type { Database } from "../db/database.js";
import type { Embedder, LanguageModel } from "../providers/types.js";
import { currentUsageScope, currentUsageSink } from "../providers/usage-scope.js";
import { recordProviderTokens } from "../telemetry/metrics.js";
import type { Clock } from "../util/clock.js";
import { recordUsage, usageDay } from "./usage-store.js";

export interface MeterOptions {
  db: Database;
  clock: Clock;
  /** Which provider serves each role (`LLM_PROVIDER`, `EMBEDDING_PROVIDER`). */
  llmProvider: string;
  embeddingProvider: string;
  /** Tokens of a text; one tokenizer (o200k) for every provider, so figures compare across them. */
  countTokens: (text: string) => number;
}

/**
 * The providers, each successful call recorded with its tokens against the app, user and stage of
 * the scope it runs in (`withUsageScope`); a call outside any scope is recorded under app "" and
 * stage "other", so totals stay complete. Tokens are counted here with one tokenizer over what was
 * sent and what came back, not taken from each API's own report, so offline, Gemini and
 * OpenAI-compatible calls are measured alike (an estimate of the bill, within a few per cent).
 */
export function meterProviders(providers: { llm: LanguageModel; embedder: Embedder }, options: MeterOptions) {
  const record = async (provider: string, model: string, input: unknown, output: unknown) => {
    const scope = currentUsageScope();
    const usage = {
      appId: scope?.appId ?? "",
      userId: scope?.userId ?? "",
      day: usageDay(options.clock.now()),
      provider,
      model,
      stage: scope?.stage ?? "other",
      inputTokens: options.countTokens(typeof input === "string" ? input : JSON.stringify(input)),
      outputTokens: output === null ? 0 : options.countTokens(JSON.stringify(output)),
    };
    // On the provider call's span (traceProviders wraps this) and in /metrics, by model and stage.
    trace
      .getActiveSpan()
      ?.setAttributes({ "gen_ai.usage.input_tokens": usage.inputTokens, "gen_ai.usage.output_tokens": usage.outputTokens });
    recordProviderTokens({ input: usage.inputTokens, output: usage.outputTokens }, { model, provider, stage: usage.stage });
    const sink = currentUsageSink();
    if (scope?.deferred) scope.deferred.push(usage);
    // Only a query's: a pipeline step's or a write's usage is recorded before it reports done.
    else if (sink && usage.stage === "query") sink(usage);
    else await recordUsage(options.db, [usage]);
  };
  const { llm, embedder } = providers;
  const meteredLlm: LanguageModel = {
    id: llm.id,
    async summarize(request) {
      const summary = await llm.summarize(request);
      await record(options.llmProvider, llm.id, request, summary);
      return summary;
    },
    async extract(request) {
      const extraction = await llm.extract(request);
      await record(options.llmProvider, llm.id, request, extraction);
      return extraction;
    },
  };
  const meteredEmbedder: Embedder = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    ...(embedder.queue ? { queue: embedder.queue } : {}),
    async embed(texts, embedOptions) {
      const vectors = await embedder.embed(texts, embedOptions);
      // Embedding APIs bill the input only.
      if (texts.length > 0) await record(options.embeddingProvider, embedder.model, texts.join("\n"), null);
      return vectors;
    },
  };
  return { llm: meteredLlm, embedder: meteredEmbedder };
}
