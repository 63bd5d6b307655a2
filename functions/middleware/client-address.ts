import type { Context } from "hono";

/** Where a request's client address comes from: the TCP peer (Node) or Cloudflare's edge header (Workers). */
export type AddressSource = "socket" | "cf-connecting-ip";

/**
 * The address a request came from, for per-address limits. On Workers Cloudflare's edge sets
 * `cf-connecting-ip` (a client cannot forge it there). On Node it is the TCP peer; behind
 * `trustedProxies` reverse proxies it is the entry of `x-forwarded-for` the nearest trusted proxy
 * added — never a value the client wrote itself, which is why the header is ignored by default.
 */
export function clientAddress(c: Context, source: AddressSource, trustedProxies: number): string {
  if (source === "cf-connecting-ip") return c.req.header("cf-connecting-ip") ?? "unknown";
  const peer = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? "local";
  if (trustedProxies <= 0) return peer;
  const forwarded = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Each trusted proxy appended the address it saw; the one `trustedProxies` from the end is the client.
  return forwarded[forwarded.length - trustedProxies] ?? peer;
}
