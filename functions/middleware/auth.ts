import type { Context, MiddlewareHandler } from "hono";
import { keyPrefix, type Principal } from "../../src/auth/api-keys.js";
import { notFound, unauthorized } from "../../src/errors.js";
import { rateLimited, type TokenBuckets } from "./rate-limit.js";

/** The context variable this middleware sets: who the request acts for. */
export type AuthVariables = { principal: Principal };

declare module "hono" {
  interface ContextVariableMap extends AuthVariables {}
}

export interface AuthOptions {
  /** Without a key, requests are refused (401) — or, when false, act anonymously for any app. */
  required: boolean;
  /** The principal of a presented key, or undefined when the key is not valid. */
  resolveKey: (presented: string) => Promise<Principal | undefined>;
  /** Path prefixes that authenticate otherwise (the signed webhook). */
  publicPrefixes?: string[];
  /** Failed key checks allowed, counted as `InvalidKeyThrottle` says. */
  failures?: InvalidKeyThrottle;
}

/**
 * Failed key checks, counted per client address and per address and key prefix (the key's public
 * `mk_…` start). A presented key is always looked up, so a valid key is served whatever else its
 * address sends (a proxy, a NAT); an invalid one from an address that has spent its allowance is
 * answered 429. Once an address has spent its allowance on one prefix, keys with that prefix from
 * there are no longer looked up (guessing the secret behind a known prefix stops), unless answered
 * without the database (the admin key, a key validated within API_KEY_CACHE_SECONDS).
 */
export interface InvalidKeyThrottle {
  byAddress: TokenBuckets;
  byAddressAndPrefix: TokenBuckets;
  address: (c: Context) => string;
}

/**
 * `Authorization: Bearer <key>` or `x-api-key: <key>`, setting `principal`. A key that is presented
 * is always checked.
 *
 * @example
 * app.use("/v1/*", authenticate({ required: true, resolveKey: (key) => resolve(db, key) }));
 */
export function authenticate(options: AuthOptions): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("authorization");
    const presented = header?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? c.req.header("x-api-key");
    let principal: Principal = { kind: "anonymous" };
    if (options.publicPrefixes?.some((prefix) => c.req.path.startsWith(prefix))) {
      c.set("principal", principal);
      return next();
    }
    if (presented) {
      principal = await checkKey(c, presented, options);
    } else if (options.required) {
      throw unauthorized("an API key is required (Authorization: Bearer <key>)");
    }
    c.set("principal", principal);
    await next();
  };
}

/**
 * The principal of a presented key, through the invalid-key throttle when there is one. Every key
 * is looked up (one indexed read, behind the per-address request limit): a valid key is served
 * however many bad ones its address or its public prefix has seen, so knowing a key's prefix is
 * not enough to lock its owner out. The throttle only turns further invalid keys into 429s.
 */
async function checkKey(c: Context, presented: string, options: AuthOptions): Promise<Principal> {
  const resolved = await options.resolveKey(presented);
  if (resolved) return resolved;
  const throttle = options.failures;
  if (!throttle) return invalidKey();
  const address = throttle.address(c);
  const byPrefix = `${address} ${keyPrefix(presented)}`;
  const prefixWait = throttle.byAddressAndPrefix.wait(byPrefix);
  if (prefixWait !== undefined) throw rateLimited(c, prefixWait, "too many invalid API keys with this prefix from this address");
  const wait = throttle.byAddressAndPrefix.check(byPrefix) ?? throttle.byAddress.check(address);
  if (wait !== undefined) throw rateLimited(c, wait, "too many invalid API keys from this address");
  return invalidKey();
}

function invalidKey(): never {
  throw unauthorized("the API key is not valid");
}

/** The fields by which a request names its app: `app_id`, and ADK's `app_name`. */
export const APP_FIELDS = ["app_id", "app_name"] as const;

/**
 * Scopes a request's body or query to the caller's app before validation: for an app key, each
 * app field the schema has is set to the key's app; naming another app is answered 404, exactly
 * as if the resource did not exist, so a key never learns what another app holds.
 */
export function scopeToApp(principal: Principal | undefined, input: unknown, fields: readonly string[]): unknown {
  if (principal?.kind !== "app" || fields.length === 0 || !input || typeof input !== "object" || Array.isArray(input)) return input;
  const scoped: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const field of fields) {
    const named = scoped[field];
    if (named !== undefined && named !== principal.appId) throw notFound("app", String(named));
    scoped[field] = principal.appId;
  }
  return scoped;
}

/** Throws 404 when a stored resource belongs to another app than the caller's. */
export function assertSameApp(principal: Principal | undefined, ownerAppId: string, what: string, id: string): void {
  if (principal?.kind === "app" && principal.appId !== ownerAppId) throw notFound(what, id);
}
