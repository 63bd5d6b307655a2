import { AsyncLocalStorage } from "node:async_hooks";

/** What a provider call is spent on: the pipeline stage (or read/write path) and whose memory. */
export const USAGE_STAGES = ["replay", "reflection", "backfill", "query", "write"] as const;
export type UsageStage = (typeof USAGE_STAGES)[number];

export interface UsageScope {
  appId: string;
  userId: string;
  stage: UsageStage;
}

const storage = new AsyncLocalStorage<UsageScope>();

/** Runs `work` with its provider calls attributed to `scope` (metered providers read it). */
export function withUsageScope<T>(scope: UsageScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentUsageScope(): UsageScope | undefined {
  return storage.getStore();
}
