import type { Context, MiddlewareHandler } from "hono";
import { createKeyResolver, type KeyResolver } from "../src/auth/api-keys.js";
import type { Env } from "../src/config/env.js";
import { sha256 } from "../src/util/hash.js";
import type { AppEnv } from "./deps.js";
import { type AddressSource, clientAddress } from "./middleware/client-address.js";
import { rateLimit, TokenBuckets } from "./middleware/rate-limit.js";

/** How requests are authenticated and limited; the same on Node and Workers. */
export interface Security {
  authRequired: boolean;
  resolveKey: KeyResolver;
  /** The client's address, for the limits that run before authentication. */
  address: (c: Context<AppEnv>) => string;
  /** Per address, before any authentication work (built once, so buckets outlive a request). */
  addressLimiter?: MiddlewareHandler<AppEnv>;
  /** Failed key checks per address. */
  authFailures?: TokenBuckets;
  /** Per API key, after authentication. */
  keyLimiter?: MiddlewareHandler<AppEnv>;
  webhook?: { secret: string; toleranceSeconds: number };
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * `loopbackOnly` is false on Workers, where there is no local interface to trust; `addressSource`
 * is the TCP peer on Node and Cloudflare's `cf-connecting-ip` on Workers.
 */
export async function securityFromEnv(env: Env, loopbackOnly: boolean, addressSource: AddressSource): Promise<Security> {
  const authRequired = env.AUTH_REQUIRED === "auto" ? !loopbackOnly : env.AUTH_REQUIRED === "true";
  const address = (c: Context<AppEnv>) => clientAddress(c, addressSource, env.TRUST_PROXY);
  const keyOf = (c: Context<AppEnv>) => {
    const principal = c.get("principal");
    return principal?.kind === "app" ? `key:${principal.keyId}` : principal?.kind === "admin" ? "admin" : undefined;
  };
  return {
    authRequired,
    resolveKey: createKeyResolver({
      cacheMs: env.API_KEY_CACHE_SECONDS * 1000,
      ...(env.ADMIN_API_KEY ? { adminKeyHash: await sha256(env.ADMIN_API_KEY) } : {}),
    }),
    address,
    ...(env.RATE_LIMIT_PER_ADDRESS_PER_MINUTE > 0
      ? {
          addressLimiter: rateLimit(
            new TokenBuckets(env.RATE_LIMIT_PER_ADDRESS_PER_MINUTE, env.RATE_LIMIT_ADDRESS_BURST),
            address,
            "client address",
          ),
        }
      : {}),
    ...(env.AUTH_FAILURES_PER_MINUTE > 0
      ? { authFailures: new TokenBuckets(env.AUTH_FAILURES_PER_MINUTE, env.AUTH_FAILURES_PER_MINUTE) }
      : {}),
    ...(env.RATE_LIMIT_PER_MINUTE > 0
      ? { keyLimiter: rateLimit(new TokenBuckets(env.RATE_LIMIT_PER_MINUTE, env.RATE_LIMIT_BURST), keyOf, "API key") }
      : {}),
    ...(env.WEBHOOK_SECRET ? { webhook: { secret: env.WEBHOOK_SECRET, toleranceSeconds: env.WEBHOOK_TOLERANCE_SECONDS } } : {}),
  };
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}
