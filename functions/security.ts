import type { MiddlewareHandler } from "hono";
import { type KeyResolver, createKeyResolver } from "../src/auth/api-keys.js";
import { sha256 } from "../src/util/hash.js";
import type { Env } from "../src/config/env.js";
import type { AppEnv } from "./deps.js";
import { rateLimit } from "./middleware/rate-limit.js";

/** How requests are authenticated and limited; the same on Node and Workers. */
export interface Security {
  authRequired: boolean;
  resolveKey: KeyResolver;
  /** Built once, so its buckets outlive one request (and, on Workers, one app instance). */
  rateLimiter?: MiddlewareHandler<AppEnv>;
  webhook?: { secret: string; toleranceSeconds: number };
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** `loopbackOnly` is false on Workers, where there is no local interface to trust. */
export async function securityFromEnv(env: Env, loopbackOnly: boolean): Promise<Security> {
  const authRequired = env.AUTH_REQUIRED === "auto" ? !loopbackOnly : env.AUTH_REQUIRED === "true";
  return {
    authRequired,
    resolveKey: createKeyResolver({ cacheMs: env.API_KEY_CACHE_SECONDS * 1000, ...(env.ADMIN_API_KEY ? { adminKeyHash: await sha256(env.ADMIN_API_KEY) } : {}) }),
    ...(env.RATE_LIMIT_PER_MINUTE > 0 ? { rateLimiter: rateLimit({ perMinute: env.RATE_LIMIT_PER_MINUTE, burst: env.RATE_LIMIT_BURST }) } : {}),
    ...(env.WEBHOOK_SECRET ? { webhook: { secret: env.WEBHOOK_SECRET, toleranceSeconds: env.WEBHOOK_TOLERANCE_SECONDS } } : {}),
  };
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}
