import { AsyncLocalStorage } from "node:async_hooks";

/**
 * One provider call's tokens, attributed to a user, a day and a stage: what metered providers
 * record (`usage/usage-store.ts`) or hand to a sink. Defined here, beside the scope, so that
 * everything that calls a provider can set the scope without depending on the usage store.
 */
export interface UsageRecord {
  appId: string;
  userId: string;
  day: string;
  provider: string;
  model: string;
  stage: string;
  inputTokens: number;
  outputTokens: number;
}

/** What a provider call is spent on: the pipeline stage (or read/write path) and whose memory. */
export const USAGE_STAGES = ["replay", "reflection", "backfill", "query", "write"] as const;
export type UsageStage = (typeof USAGE_STAGES)[number];

export interface UsageScope {
  appId: string;
  userId: string;
  stage: UsageStage;
  /**
   * Collects the calls here instead of writing them at once: a rebuild preview holds its
   * transaction (on PGlite the only connection) and writes what it spent after rolling back.
   */
  deferred?: UsageRecord[];
}

const storage = new AsyncLocalStorage<UsageScope>();

/** Runs `work` with its provider calls attributed to `scope` (metered providers read it). */
export function withUsageScope<T>(scope: UsageScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentUsageScope(): UsageScope | undefined {
  return storage.getStore();
}

/** Where a request's query usage goes instead of being written while the request waits on it. */
export type UsageSink = (usage: UsageRecord) => void;

const sinks = new AsyncLocalStorage<UsageSink>();

/**
 * Runs `work` (a request) with its queries' provider usage handed to `sink`, which records it
 * after the response: metering a query embedding is a transaction of its own (the user lock, the
 * erasure check, the upsert), five round trips that held up every context window and search.
 */
export function withUsageSink<T>(sink: UsageSink, work: () => T): T {
  return sinks.run(sink, work);
}

export function currentUsageSink(): UsageSink | undefined {
  return sinks.getStore();
}
