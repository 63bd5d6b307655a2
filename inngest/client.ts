import { dependencyInjectionMiddleware, Inngest } from "inngest";
import type { Database } from "../src/db/database.js";
import type { DecayParameters } from "../src/memory/lifecycle/retention.js";
import type { Embedder, LanguageModel } from "../src/providers/types.js";
import type { Clock } from "../src/util/clock.js";
import { stepEncryption } from "./step-encryption.js";
import { StepTelemetry } from "./step-telemetry.js";

/** What the pipeline functions need, injected per client instead of imported as globals. */
export interface PipelineDeps {
  db: Database;
  /** The memory's clock (decisions and recorded times), the same one the HTTP side uses. */
  clock: Clock;
  llm: LanguageModel;
  embedder: Embedder;
  settings: PipelineSettings;
  /**
   * The system time of what replay and reflection derive from a session's chunk; by default the
   * clock's reading. A simulation that posts a lived history at once and digests it afterwards
   * (the LongMemEval import) stamps it at the session's end instead, as if it had been derived then.
   */
  derivedAt?: (session: { endedAt: string | null }) => Date;
}

/** When a chunk of `session` is derived, on the memory's clock (`PipelineDeps.derivedAt`). */
export function derivationTime(deps: Pick<PipelineDeps, "clock" | "derivedAt">, session: { endedAt: string | null }): Date {
  return deps.derivedAt ? deps.derivedAt(session) : deps.clock.now();
}

export interface PipelineSettings {
  replayDebounce: string;
  replayDebounceTimeout: string;
  replayMaxEvents: number;
  embedBatchSize: number;
  reflectionDebounce: string;
  reflectionMaxEvents: number;
  reflectionImportanceThreshold: number;
  sweepCron: string;
  decayCron: string;
  decayBatchSize: number;
  /** Milliseconds one decay step runs batches for before it returns its cursor (0: one batch). */
  decayStepBudgetMs: number;
  decayParameters: DecayParameters;
  sweepMinAgeMs: number;
  /** Consecutive failed runs of a stage before it is parked (dead letters). */
  maxFailures: number;
  /** Tokens per app and UTC day before deep reflection parks (0: no budget). */
  dailyTokenBudget: number;
}

export interface PipelineClientOptions {
  /** `embedded`: the in-process executor (dev mode, no signatures); `cloud`: Inngest Cloud. */
  mode: "embedded" | "cloud";
  baseUrl?: string;
  eventKey?: string;
  signingKey?: string;
  /** Where the SDK sends events; in embedded mode the executor's in-process event API. */
  fetch?: typeof fetch;
  /** The SDK's own log lines (step errors, retries) go to the service's logger. */
  logger?: Record<"debug" | "info" | "warn" | "error", (...args: unknown[]) => void>;
  /**
   * End-to-end encryption of step and function outputs (which hold users' words): Inngest Cloud —
   * and the embedded executor alike — store only ciphertext. Older keys still decrypt during a rotation.
   */
  encryption?: { key: string; fallbackKeys?: string[] };
}

export const APP_ID = "memory-pipeline";

/**
 * The Inngest client with the pipeline's dependencies injected into every function's context.
 *
 * @example
 * const inngest = createPipelineClient({ mode: "embedded", fetch: executor.fetch }, deps);
 */
export function createPipelineClient(options: PipelineClientOptions, deps: PipelineDeps) {
  return new Inngest({
    id: APP_ID,
    isDev: options.mode === "embedded",
    // Steps run eagerly, each checkpointed before the next: to Inngest Cloud, or to the embedded
    // executor's checkpoint API (`src/executor/checkpoints.ts`), one serve call per run instead of per step.
    checkpointing: true,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.eventKey ? { eventKey: options.eventKey } : {}),
    ...(options.signingKey ? { signingKey: options.signingKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    middleware: [
      dependencyInjectionMiddleware({ deps }),
      StepTelemetry,
      ...(options.encryption ? [stepEncryption([options.encryption.key, ...(options.encryption.fallbackKeys ?? [])])] : []),
    ],
  });
}

export type PipelineClient = ReturnType<typeof createPipelineClient>;
