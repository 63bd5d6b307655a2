import type { Context, MiddlewareHandler } from "hono";
import type { Database } from "../../src/db/database.js";
import type { SecuritySettings } from "../deps.js";
import { authenticate } from "./auth.js";
import { rateLimit, TokenBuckets } from "./rate-limit.js";

/**
 * The API's gate, in order: the limit per client address (before any authentication work, so a
 * flood of bad keys costs nothing), authentication (the signed webhook excepted), the limit per
 * key. Built once per app, so the buckets outlive requests (per process on Node, per isolate on
 * Workers).
 *
 * @example
 * app.use("/v1/*", ...accessControl(deps.security, deps));
 */
export function accessControl(security: SecuritySettings, deps: { db: Database }): MiddlewareHandler[] {
  const gate: MiddlewareHandler[] = [];
  if (security.perAddress) {
    gate.push(rateLimit(new TokenBuckets(security.perAddress.perMinute, security.perAddress.burst), security.address, "client address"));
  }
  gate.push(
    authenticate({
      required: security.authRequired,
      // Read per request: on Workers the database is the request's own connection.
      resolveKey: (presented) => security.resolveKey(deps.db, presented),
      publicPrefixes: ["/v1/webhooks/"],
      ...(security.authFailuresPerMinute
        ? {
            failures: {
              byAddress: new TokenBuckets(security.authFailuresPerMinute, security.authFailuresPerMinute),
              byAddressAndPrefix: new TokenBuckets(security.authFailuresPerMinute, security.authFailuresPerMinute),
              address: security.address,
            },
          }
        : {}),
    }),
  );
  if (security.perKey) gate.push(rateLimit(new TokenBuckets(security.perKey.perMinute, security.perKey.burst), keyOf, "API key"));
  return gate;
}

function keyOf(c: Context): string | undefined {
  const principal = c.get("principal");
  return principal?.kind === "app" ? `key:${principal.keyId}` : principal?.kind === "admin" ? "admin" : undefined;
}
