import { toHex } from "../util/hash.js";

/**
 * Webhook signatures: `webhook-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * with the shared secret — the scheme Stripe popularised, so senders have libraries for it.
 */
export async function signWebhook(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`));
  return `t=${timestamp},v1=${toHex(mac)}`;
}

export type SignatureCheck = { ok: true; signature: string } | { ok: false; reason: string };

/** Checks the header against the body and the clock; `signature` identifies the delivery for replay checks. */
export async function verifyWebhook(
  secret: string,
  header: string | undefined,
  body: string,
  toleranceSeconds: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SignatureCheck> {
  const parts = Object.fromEntries((header ?? "").split(",").map((part) => part.trim().split("=", 2) as [string, string]));
  const timestamp = Number(parts["t"]);
  const presented = parts["v1"];
  if (!header || !Number.isInteger(timestamp) || !presented)
    return { ok: false, reason: "missing or malformed webhook-signature header (t=<unix seconds>,v1=<hex>)" };
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds)
    return { ok: false, reason: `signature timestamp is outside the ${toleranceSeconds} s window` };
  const expected = (await signWebhook(secret, timestamp, body)).split("v1=")[1] as string;
  if (!constantTimeEqual(expected, presented.toLowerCase())) return { ok: false, reason: "signature does not match the body" };
  return { ok: true, signature: expected };
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
