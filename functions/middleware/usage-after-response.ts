import type { MiddlewareHandler } from "hono";
import { withUsageSink } from "../../src/providers/usage-scope.js";
import type { UsageRecord } from "../../src/usage/usage-store.js";
import type { AppDeps } from "../deps.js";

/**
 * A request's query usage (its query embedding) is recorded once the handler is done, in the
 * background, instead of on the way to the answer; one that arrives later (an embedding still in
 * flight when the handler failed) is recorded as it arrives. Either way it is recorded: the
 * background work is tracked (and handed to `waitUntil` on Workers). Concurrent requests' usage is
 * written together (`UsageRecorder`). `deps` is read per request: on Workers `background` is the
 * request's own.
 *
 * @example
 * app.use("/v1/*", usageAfterResponse(deps));
 */
export function usageAfterResponse(deps: Pick<AppDeps, "background" | "usageRecorder">): MiddlewareHandler {
  return async (c, next) => {
    const { background, usageRecorder } = deps;
    const record = (usages: UsageRecord[]) => background.run(c, "record provider usage", () => usageRecorder.record(usages));
    const held: UsageRecord[] = [];
    let answered = false;
    try {
      await withUsageSink((usage) => (answered ? record([usage]) : held.push(usage)), next);
    } finally {
      answered = true;
      if (held.length > 0) record(held);
    }
  };
}
