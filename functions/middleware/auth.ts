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
  /**
   * The principal of a presented key, or undefined when the key is not valid; with `cachedOnly`,
   * only what needs no database work (the admin key, keys validated a moment ago).
   */
  resolveKey: (presented: string, cachedOnly?: boolean) => Promise<Principal | undefined>;
  /** Path prefixes that authenticate otherwise (the signed webhook). */
  publicPrefixes?: string[];
  /** Failed key checks allowed, counted as `InvalidKeyThrottle` says. */
  failures?: InvalidKeyThrottle;
}

/**
 * Failed key checks, counted per client address and per address and key prefix (the key's public
 * `mk_…` start). Once an address has spent its allowance, a key it presents is looked up only when
 * its prefix is one this process has served; once an address has spent it on one prefix, that
 * prefix is no longer looked up from there. Either way a key answered without the database (the
 * admin key, a key validated within API_KEY_CACHE_SECONDS) is still served: someone sending bad
 * keys from a shared address (a proxy, a NAT) slows their own guesses, not the valid keys beside them.
 */
export interface InvalidKeyThrottle {
  byAddress: TokenBuckets;
  byAddressAndPrefix: TokenBuckets;
  address: (c: Context) => string;
  /** Key prefixes this process has served (bounded: least recently served forgotten first). */
  servedPrefixes: RecentSet;
}

/** A set that keeps at most `max` members, forgetting the least recently added or touched. */
export class RecentSet {
  private readonly members = new Set<string>();
  constructor(private readonly max = 10_000) {}
  add(member: string): void {
    this.members.delete(member);
    this.members.add(member);
    if (this.members.size > this.max) {
      const oldest = this.members.values().next().value;
      if (oldest !== undefined) this.members.delete(oldest);
    }
  }
  has(member: string): boolean {
    return this.members.has(member);
  }
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

/** The principal of a presented key, through the invalid-key throttle when there is one. */
async function checkKey(c: Context, presented: string, options: AuthOptions): Promise<Principal> {
  const throttle = options.failures;
  if (!throttle) return (await options.resolveKey(presented)) ?? invalidKey();
  const address = throttle.address(c);
  const prefix = keyPrefix(presented);
  const byPrefix = `${address} ${prefix}`;
  const wait =
    throttle.byAddressAndPrefix.wait(byPrefix) ?? (throttle.servedPrefixes.has(prefix) ? undefined : throttle.byAddress.wait(address));
  if (wait !== undefined) {
    const known = await options.resolveKey(presented, true);
    if (known) return known;
    throw rateLimited(c, wait, "too many invalid API keys from this address");
  }
  const resolved = await options.resolveKey(presented);
  if (!resolved) {
    throttle.byAddress.check(address);
    throttle.byAddressAndPrefix.check(byPrefix);
    return invalidKey();
  }
  throttle.servedPrefixes.add(prefix);
  return resolved;
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
