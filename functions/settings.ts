import type { PipelineClientOptions, PipelineSettings } from "../inngest/client.js";
import { durationMs, type Env } from "../src/config/env.js";
import { resolveParameters } from "../src/memory/lifecycle/retention.js";
import { type Logger, toVariadicLogger } from "../src/util/logger.js";

/**
 * How the Inngest client reaches Inngest (Cloud or self-hosted) — URL, event and signing keys,
 * step encryption — and where the SDK logs; the same on Node and Workers.
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

/** The pipeline functions' settings from configuration; the same on Node and Workers. */
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
