import type { PipelineClientOptions, PipelineSettings } from "../inngest/client.js";
import type { Env } from "../src/config/env.js";
import type { ConnectOptions } from "../src/db/connect.js";
import { resolveParameters } from "../src/memory/lifecycle/retention.js";
import type { ProviderChoice } from "../src/providers/index.js";
import { type Clock, offsetClock, systemClock } from "../src/util/clock.js";
import { durationMs } from "../src/util/duration.js";
import { type Logger, toVariadicLogger } from "../src/util/logger.js";

/**
 * The configuration, turned into the narrow options each part below the composition root takes;
 * the same on Node and Workers. Nothing below `functions/` reads `Env` itself.
 */

/** Where the database is and how its pool behaves (DATA_DIR, DATABASE_*, NEON_WS_PROXY). */
export function databaseOptions(env: Env): ConnectOptions {
  return {
    dataDir: env.DATA_DIR,
    thread: env.EMBEDDED_DATABASE_THREAD,
    url: env.DATABASE_URL,
    driver: env.DATABASE_DRIVER,
    poolMax: env.DATABASE_POOL_MAX,
    connectTimeoutMs: durationMs(env.DATABASE_CONNECT_TIMEOUT),
    preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
    neonWsProxy: env.NEON_WS_PROXY,
  };
}

/** The LLM and embedder with their provider's settings; `parseEnv` has checked the chosen ones have what they need. */
export function providerChoice(env: Env): ProviderChoice {
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
  const llm: ProviderChoice["llm"] =
    env.LLM_PROVIDER === "gemini"
      ? {
          provider: "gemini",
          ...gemini(env.GEMINI_MODEL),
          ...(env.GEMINI_THINKING_LEVEL ? { thinkingLevel: env.GEMINI_THINKING_LEVEL } : {}),
        }
      : env.LLM_PROVIDER === "openai"
        ? { provider: "openai", ...openAI(env.OPENAI_MODEL as string), responseFormat: env.OPENAI_RESPONSE_FORMAT }
        : { provider: "offline" };
  const embedder: ProviderChoice["embedder"] =
    env.EMBEDDING_PROVIDER === "gemini"
      ? { provider: "gemini", ...gemini(env.GEMINI_EMBEDDING_MODEL), dimensions: env.GEMINI_EMBEDDING_DIMENSIONS }
      : env.EMBEDDING_PROVIDER === "openai"
        ? {
            provider: "openai",
            ...openAI(env.OPENAI_EMBEDDING_MODEL as string),
            ...(env.OPENAI_EMBEDDING_DIMENSIONS ? { dimensions: env.OPENAI_EMBEDDING_DIMENSIONS } : {}),
          }
        : { provider: "offline" };
  return { llm, embedder: { ...embedder, ...(env.EMBED_WORKERS ? { concurrency: env.EMBED_WORKERS } : {}) } };
}

/** The system clock, or the one CLOCK_OFFSET shifts. */
export function clockOf(env: Pick<Env, "CLOCK_OFFSET">): Clock {
  return env.CLOCK_OFFSET ? offsetClock(durationMs(env.CLOCK_OFFSET)) : systemClock;
}

/**
 * How the Inngest client reaches Inngest (Cloud or self-hosted) — URL, event and signing keys,
 * step encryption — and where the SDK logs.
 */
export function inngestConnection(env: Env, logger: Logger): Omit<PipelineClientOptions, "mode" | "fetch"> {
  return {
    ...(env.INNGEST_BASE_URL ? { baseUrl: env.INNGEST_BASE_URL } : {}),
    ...(env.INNGEST_EVENT_KEY ? { eventKey: env.INNGEST_EVENT_KEY } : {}),
    ...(env.INNGEST_SIGNING_KEY ? { signingKey: env.INNGEST_SIGNING_KEY } : {}),
    ...(env.INNGEST_ENCRYPTION_KEY
      ? { encryption: { key: env.INNGEST_ENCRYPTION_KEY, fallbackKeys: env.INNGEST_ENCRYPTION_FALLBACK_KEYS } }
      : {}),
    logger: toVariadicLogger(logger),
  };
}

/** The pipeline functions' settings. */
export function pipelineSettings(env: Env): PipelineSettings {
  return {
    replayDebounce: env.REPLAY_DEBOUNCE,
    replayDebounceTimeout: env.REPLAY_DEBOUNCE_TIMEOUT,
    replayMaxEvents: env.REPLAY_MAX_EVENTS,
    embedBatchSize: env.EMBED_BATCH_SIZE,
    reflectionDebounce: env.REFLECTION_DEBOUNCE,
    reflectionMaxEvents: env.REFLECTION_MAX_EVENTS,
    reflectionImportanceThreshold: env.REFLECTION_IMPORTANCE_THRESHOLD,
    sweepCron: env.SWEEP_CRON,
    decayCron: env.DECAY_CRON,
    decayBatchSize: env.DECAY_BATCH_SIZE,
    decayStepBudgetMs: durationMs(env.DECAY_STEP_BUDGET),
    decayParameters: {
      preset: env.DECAY_PRESET,
      min_age_days: env.DECAY_MIN_AGE_DAYS,
      purge_after_days: env.DECAY_PURGE_AFTER_DAYS,
      ...(env.MEMORY_QUOTA_PER_USER ? { quota: env.MEMORY_QUOTA_PER_USER } : {}),
    },
    sweepMinAgeMs: durationMs(env.SWEEP_MIN_AGE),
    maxFailures: env.PIPELINE_MAX_FAILURES,
    dailyTokenBudget: env.DAILY_TOKEN_BUDGET,
  };
}

/** λ and threshold of the scheduled decay, as memory health reports them. */
export function scheduledDecay(settings: PipelineSettings): { lambda: number; threshold: number } {
  const { lambda, threshold } = resolveParameters(settings.decayParameters);
  return { lambda, threshold };
}
