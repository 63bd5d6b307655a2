import type { Context, MiddlewareHandler } from "hono";
import { DomainError } from "../../src/errors.js";

/**
 * Token buckets by caller: `perMinute` on average, bursts up to `burst`. State lives in this
 * process or Worker isolate — a first line of defence; Cloudflare's rate-limiting rules are the
 * global one.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    readonly perMinute: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Seconds to wait when `caller` has no token left, else undefined; `take` spends one. */
  check(caller: string, take = true): number | undefined {
    const at = this.now();
    const bucket = this.buckets.get(caller) ?? { tokens: this.burst, at };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (at - bucket.at) * this.refillPerMs);
    bucket.at = at;
    if (bucket.tokens < 1) {
      this.buckets.set(caller, bucket);
      return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
    }
    if (take) bucket.tokens -= 1;
    // Bounded memory under a flood of distinct callers.
    if (this.buckets.size > 50_000) this.buckets.clear();
    this.buckets.set(caller, bucket);
    return undefined;
  }
}

export function rateLimited(c: Context, retryAfter: number, message: string): DomainError {
  c.header("retry-after", String(retryAfter));
  return new DomainError("rate_limited", `${message}; retry in ${retryAfter} s`, { retry_after_seconds: retryAfter });
}

/** A limit per caller, where `identify` names the caller (undefined: not limited here). */
export function rateLimit(buckets: TokenBuckets, identify: (c: Context) => string | undefined, what: string): MiddlewareHandler {
  return async (c, next) => {
    const caller = identify(c);
    const wait = caller === undefined ? undefined : buckets.check(caller);
    if (wait !== undefined) throw rateLimited(c, wait, `rate limit of ${buckets.perMinute} requests per minute per ${what} exceeded`);
    await next();
  };
}
