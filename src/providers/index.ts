import { durationMs, type Env } from "../config/env.js";
import { createGeminiEmbedder } from "./gemini/gemini-embedder.js";
import { createGeminiLanguageModel } from "./gemini/gemini-language-model.js";
import { offlineLanguageModel } from "./offline/offline-language-model.js";
import { createOpenAIEmbedder } from "./openai-compatible/openai-embedder.js";
import { createOpenAILanguageModel } from "./openai-compatible/openai-language-model.js";
import type { Embedder, LanguageModel } from "./types.js";

export interface Providers {
  llm: LanguageModel;
  embedder: Embedder;
}

/**
 * Chooses the LLM and embedder from configuration; `parseEnv` has already checked that the chosen
 * providers have their settings. The offline embedder is the caller's: Node runs USE-lite in
 * worker threads, a Worker cannot.
 */
export function createProviders(env: Env, offlineEmbedder: () => Embedder): Providers {
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
  const llms: Record<Env["LLM_PROVIDER"], () => LanguageModel> = {
    offline: () => offlineLanguageModel,
    gemini: () =>
      createGeminiLanguageModel({
        ...gemini(env.GEMINI_MODEL),
        ...(env.GEMINI_THINKING_LEVEL ? { thinkingLevel: env.GEMINI_THINKING_LEVEL } : {}),
      }),
    openai: () => createOpenAILanguageModel({ ...openAI(env.OPENAI_MODEL as string), responseFormat: env.OPENAI_RESPONSE_FORMAT }),
  };
  const embedders: Record<Env["EMBEDDING_PROVIDER"], () => Embedder> = {
    offline: offlineEmbedder,
    gemini: () => createGeminiEmbedder({ ...gemini(env.GEMINI_EMBEDDING_MODEL), dimensions: env.GEMINI_EMBEDDING_DIMENSIONS }),
    openai: () =>
      createOpenAIEmbedder({
        ...openAI(env.OPENAI_EMBEDDING_MODEL as string),
        ...(env.OPENAI_EMBEDDING_DIMENSIONS ? { dimensions: env.OPENAI_EMBEDDING_DIMENSIONS } : {}),
      }),
  };
  return { llm: llms[env.LLM_PROVIDER](), embedder: embedders[env.EMBEDDING_PROVIDER]() };
}
