import type { Env } from "../config/env.js";
import { createGeminiEmbedder } from "./gemini/gemini-embedder.js";
import { createGeminiLanguageModel } from "./gemini/gemini-language-model.js";
import { offlineLanguageModel } from "./offline/offline-language-model.js";
import type { Embedder, LanguageModel } from "./types.js";

export interface Providers {
  llm: LanguageModel;
  embedder: Embedder;
}

const GEMINI_EMBEDDING_DIMENSIONS: Record<string, number> = { "text-embedding-004": 768, "gemini-embedding-001": 3072 };

/**
 * Chooses the LLM and embedder from configuration; `parseEnv` has already checked the API key.
 * The offline embedder is the caller's: Node runs USE-lite in worker threads, a Worker cannot.
 */
export function createProviders(env: Env, offlineEmbedder: () => Embedder): Providers {
  const gemini = (model: string) => ({
    apiKey: env.GEMINI_API_KEY as string,
    model,
    ...(env.GEMINI_BASE_URL ? { baseUrl: env.GEMINI_BASE_URL } : {}),
  });
  return {
    llm: env.LLM_PROVIDER === "gemini" ? createGeminiLanguageModel(gemini(env.GEMINI_MODEL)) : offlineLanguageModel,
    embedder:
      env.EMBEDDING_PROVIDER === "gemini"
        ? createGeminiEmbedder({
            ...gemini(env.GEMINI_EMBEDDING_MODEL),
            dimensions: GEMINI_EMBEDDING_DIMENSIONS[env.GEMINI_EMBEDDING_MODEL] ?? 768,
          })
        : offlineEmbedder(),
  };
}
