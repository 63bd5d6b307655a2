import type { GeminiOptions } from "./gemini/gemini-client.js";
import type { GeminiLanguageModelOptions } from "./gemini/gemini-language-model.js";
import { offlineLanguageModel } from "./offline/offline-language-model.js";
import type { OpenAICompatibleOptions } from "./openai-compatible/openai-client.js";
import type { OpenAILanguageModelOptions } from "./openai-compatible/openai-language-model.js";
import type { Embedder, LanguageModel } from "./types.js";

export interface Providers {
  llm: LanguageModel;
  embedder: Embedder;
}

/** Which language model to use, with the settings its provider needs (LLM_PROVIDER, GEMINI_*, OPENAI_*). */
export type LanguageModelChoice =
  | { provider: "offline" }
  | ({ provider: "gemini" } & GeminiLanguageModelOptions)
  | ({ provider: "openai" } & OpenAILanguageModelOptions);

/** Which embedder to use, with the settings its provider needs (EMBEDDING_PROVIDER, GEMINI_EMBEDDING_*, OPENAI_EMBEDDING_*). */
export type EmbedderChoice = (
  | { provider: "offline" }
  | ({ provider: "gemini" } & GeminiOptions & { dimensions: number })
  | ({ provider: "openai" } & OpenAICompatibleOptions & { dimensions?: number })
) & {
  /** Batches embedded at once (EMBED_WORKERS): the offline model's worker threads, or a provider's concurrent requests. */
  concurrency?: number;
};

/** Makes the offline embedder with this many worker threads (its own default without a number). */
export type OfflineEmbedderFactory = (options: { workers?: number }) => Embedder;

/** The offline models a platform can run: on Node in worker threads, on Workers in the isolate. */
export interface OfflineModels {
  embedder: OfflineEmbedderFactory;
  /** Default: `offlineLanguageModel`, on the calling thread. */
  languageModel?: () => LanguageModel;
}

export interface ProviderChoice {
  llm: LanguageModelChoice;
  embedder: EmbedderChoice;
}

/**
 * Builds the chosen LLM and embedder. A provider's SDK is imported only when it is chosen (each
 * adds to start-up). The offline embedder is the caller's: Node runs USE-lite in worker
 * threads, a Worker cannot.
 *
 * @example
 * const { llm, embedder } = await createProviders(
 *   { llm: { provider: "offline" }, embedder: { provider: "offline" } },
 *   { embedder: createUseEmbedder, languageModel: createThreadedLanguageModel },
 * );
 */
export async function createProviders(choice: ProviderChoice, offline: OfflineModels): Promise<Providers> {
  const [llm, embedder] = await Promise.all([
    languageModel(choice.llm, offline.languageModel ?? (() => offlineLanguageModel)),
    chosenEmbedder(choice.embedder, offline.embedder),
  ]);
  return { llm, embedder };
}

async function languageModel(choice: LanguageModelChoice, offline: () => LanguageModel): Promise<LanguageModel> {
  switch (choice.provider) {
    case "offline":
      return offline();
    case "gemini":
      return (await import("./gemini/gemini-language-model.js")).createGeminiLanguageModel(choice);
    case "openai":
      return (await import("./openai-compatible/openai-language-model.js")).createOpenAILanguageModel(choice);
  }
}

async function chosenEmbedder(choice: EmbedderChoice, offlineEmbedder: OfflineEmbedderFactory): Promise<Embedder> {
  switch (choice.provider) {
    case "offline":
      return offlineEmbedder(choice.concurrency ? { workers: choice.concurrency } : {});
    case "gemini":
      return (await import("./gemini/gemini-embedder.js")).createGeminiEmbedder(choice);
    case "openai":
      return (await import("./openai-compatible/openai-embedder.js")).createOpenAIEmbedder(choice);
  }
}
