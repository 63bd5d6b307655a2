import type { MiddlewareHandler } from "hono";
import { DomainError } from "../../src/errors.js";
import type { AppEnv } from "../deps.js";

/**
 * Token bucket per caller (API key, else client address): `perMinute` requests on average with
 * bursts up to `burst`. State lives in this process or Worker isolate, so on Workers the limit is
 * per isolate — a first line of defence; Cloudflare's rate-limiting rules are the global one.
 */
export function rateLimit(options: { perMinute: number; burst: number; now?: () => number }): MiddlewareHandler<AppEnv> {
  const now = options.now ?? Date.now;
  const refillPerMs = options.perMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return async (c, next) => {
    const principal = c.get("principal");
    const caller = principal?.kind === "app" ? `key:${principal.keyId}` : principal?.kind === "admin" ? "admin" : `ip:${c.req.header("cf-connecting-ip") ?? c.req.header("x-forwarded-for") ?? "local"}`;
    const at = now();
    const bucket = buckets.get(caller) ?? { tokens: options.burst, at };
    bucket.tokens = Math.min(options.burst, bucket.tokens + (at - bucket.at) * refillPerMs);
    bucket.at = at;
    if (bucket.tokens < 1) {
      buckets.set(caller, bucket);
      const retryAfter = Math.ceil((1 - bucket.tokens) / refillPerMs / 1000);
      c.header("retry-after", String(retryAfter));
      throw new DomainError("rate_limited", `rate limit of ${options.perMinute} requests per minute exceeded; retry in ${retryAfter} s`, { retry_after_seconds: retryAfter });
    }
    bucket.tokens -= 1;
    if (buckets.size > 50_000) buckets.clear();
    buckets.set(caller, bucket);
    await next();
  };
}
