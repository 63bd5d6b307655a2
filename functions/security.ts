import { createKeyResolver } from "../src/auth/api-keys.js";
import type { Env } from "../src/config/env.js";
import { sha256 } from "../src/util/hash.js";
import type { SecuritySettings } from "./deps.js";
import { type AddressSource, clientAddress } from "./middleware/client-address.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** The names a browser on this machine uses for a loopback server (IPv6 as the Host header writes it). */
const LOOPBACK_HOST_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * How requests are authenticated and limited, from configuration. `loopbackOnly` is false on
 * Workers, where there is no local interface to trust; `addressSource` is the TCP peer on Node and
 * Cloudflare's `cf-connecting-ip` on Workers.
 *
 * @example
 * const security = await securityFromEnv(env, isLoopback(env.HOST), "socket");
 */
export async function securityFromEnv(env: Env, loopbackOnly: boolean, addressSource: AddressSource): Promise<SecuritySettings> {
  const authRequired = env.AUTH_REQUIRED === "auto" ? !loopbackOnly : env.AUTH_REQUIRED === "true";
  const allowedHosts = allowedHostsFromEnv(env.ALLOWED_HOSTS, loopbackOnly && !authRequired);
  return {
    authRequired,
    ...(allowedHosts ? { allowedHosts } : {}),
    resolveKey: createKeyResolver({
      cacheMs: env.API_KEY_CACHE_SECONDS * 1000,
      ...(env.ADMIN_API_KEY ? { adminKeyHash: await sha256(env.ADMIN_API_KEY) } : {}),
    }),
    address: (c) => clientAddress(c, addressSource, env.TRUST_PROXY),
    ...(env.RATE_LIMIT_PER_ADDRESS_PER_MINUTE > 0
      ? { perAddress: { perMinute: env.RATE_LIMIT_PER_ADDRESS_PER_MINUTE, burst: env.RATE_LIMIT_ADDRESS_BURST } }
      : {}),
    ...(env.AUTH_FAILURES_PER_MINUTE > 0 ? { authFailuresPerMinute: env.AUTH_FAILURES_PER_MINUTE } : {}),
    ...(env.RATE_LIMIT_PER_MINUTE > 0 ? { perKey: { perMinute: env.RATE_LIMIT_PER_MINUTE, burst: env.RATE_LIMIT_BURST } } : {}),
    ...(env.WEBHOOK_SECRET ? { webhook: { secret: env.WEBHOOK_SECRET, toleranceSeconds: env.WEBHOOK_TOLERANCE_SECONDS } } : {}),
  };
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host);
}

/**
 * The Host names to answer: the configured ones (`*`: any), else the loopback names when a web
 * page could otherwise rebind its own name to this keyless local server, else any.
 */
function allowedHostsFromEnv(configured: string[] | undefined, keylessLoopback: boolean): ReadonlySet<string> | undefined {
  if (configured) return configured.includes("*") ? undefined : new Set(configured.map(hostName));
  return keylessLoopback ? new Set(LOOPBACK_HOST_NAMES) : undefined;
}

/** `::1` written as a Host header writes it (`[::1]`); names as they are. */
function hostName(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
