import type { Context, MiddlewareHandler } from "hono";
import { DomainError } from "../../src/errors.js";

/**
 * Token buckets by caller: `perMinute` on average, bursts up to `burst`. State lives in this
 * process or Worker isolate — a first line of defence; Cloudflare's rate-limiting rules are the
 * global one.
 */
export class TokenBuckets {
  /** In order of last use (a Map keeps insertion order; a used bucket is moved to the end). */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    readonly perMinute: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
    /** Callers remembered at most; beyond it the least recently seen is forgotten, never everyone. */
    private readonly maxCallers = 50_000,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** How many callers are remembered. */
  get size(): number {
    return this.buckets.size;
  }

  /** Seconds to wait when `caller` has no token left, else undefined; spends nothing. */
  wait(caller: string): number | undefined {
    return this.check(caller, false);
  }

  /** Seconds to wait when `caller` has no token left, else undefined; `take` spends one. */
  check(caller: string, take = true): number | undefined {
    const at = this.now();
    const bucket = this.buckets.get(caller) ?? { tokens: this.burst, at };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (at - bucket.at) * this.refillPerMs);
    bucket.at = at;
    this.remember(caller, bucket);
    if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
    if (take) bucket.tokens -= 1;
    return undefined;
  }

  /**
   * Bounded memory under a flood of distinct callers: the least recently seen bucket goes. A
   * caller that keeps sending stays remembered (and limited) however many others pass by.
   */
  private remember(caller: string, bucket: { tokens: number; at: number }): void {
    this.buckets.delete(caller);
    this.buckets.set(caller, bucket);
    if (this.buckets.size > this.maxCallers) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
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
