import { durationMs, type Env } from "../config/env.js";
import { offlineLanguageModel } from "./offline/offline-language-model.js";
import type { Embedder, LanguageModel } from "./types.js";

export interface Providers {
  llm: LanguageModel;
  embedder: Embedder;
}

/**
 * Chooses the LLM and embedder from configuration; `parseEnv` has already checked that the chosen
 * providers have their settings. A provider's SDK is imported only when it is chosen (each costs
 * ~0.2 s of start-up). The offline embedder is the caller's: Node runs USE-lite in worker
 * threads, a Worker cannot.
 */
export async function createProviders(env: Env, offlineEmbedder: () => Embedder): Promise<Providers> {
  const timeoutMs = durationMs(env.PROVIDER_TIMEOUT);
  const gemini = (model: string) => ({
    apiKey: env.GEMINI_API_KEY as string,
    model,
    timeoutMs,
    ...(env.GEMINI_BASE_URL ? { baseUrl: env.GEMINI_BASE_URL } : {}),
  });
  const openAI = (model: string) => ({
    model,
    timeoutMs,
    ...(env.OPENAI_BASE_URL ? { baseUrl: env.OPENAI_BASE_URL } : {}),
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
  });
  const llms: Record<Env["LLM_PROVIDER"], () => Promise<LanguageModel>> = {
    offline: async () => offlineLanguageModel,
    gemini: async () =>
      (await import("./gemini/gemini-language-model.js")).createGeminiLanguageModel({
        ...gemini(env.GEMINI_MODEL),
        ...(env.GEMINI_THINKING_LEVEL ? { thinkingLevel: env.GEMINI_THINKING_LEVEL } : {}),
      }),
    openai: async () =>
      (await import("./openai-compatible/openai-language-model.js")).createOpenAILanguageModel({
        ...openAI(env.OPENAI_MODEL as string),
        responseFormat: env.OPENAI_RESPONSE_FORMAT,
      }),
  };
  const embedders: Record<Env["EMBEDDING_PROVIDER"], () => Promise<Embedder>> = {
    offline: async () => offlineEmbedder(),
    gemini: async () =>
      (await import("./gemini/gemini-embedder.js")).createGeminiEmbedder({
        ...gemini(env.GEMINI_EMBEDDING_MODEL),
        dimensions: env.GEMINI_EMBEDDING_DIMENSIONS,
      }),
    openai: async () =>
      (await import("./openai-compatible/openai-embedder.js")).createOpenAIEmbedder({
        ...openAI(env.OPENAI_EMBEDDING_MODEL as string),
        ...(env.OPENAI_EMBEDDING_DIMENSIONS ? { dimensions: env.OPENAI_EMBEDDING_DIMENSIONS } : {}),
      }),
  };
  const [llm, embedder] = await Promise.all([llms[env.LLM_PROVIDER](), embedders[env.EMBEDDING_PROVIDER]()]);
  return { llm, embedder };
}
