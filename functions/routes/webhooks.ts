import { lt, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { verifyWebhook } from "../../src/auth/webhook-signature.js";
import { webhookDeliveries } from "../../src/db/schema/index.js";
import { DomainError, notFound, unauthorized } from "../../src/errors.js";
import { requestReflection } from "../../src/pipeline/reflection-backlog.js";
import type { AppEnv } from "../deps.js";
import { parseInput } from "../middleware/validate.js";

export const ConsolidateSchema = z.strictObject({
  app_id: z.string().trim().min(1).max(200).default("default"),
  user_id: z.string().trim().min(1).max(200),
  /** One session; without it, every session of the user with events not yet reflected. */
  session_id: z.uuid().optional(),
});

/**
 * Webhook-triggered consolidation: an external system asks for deep reflection. Authenticated by
 * an HMAC signature with a timestamp window instead of an API key; each signature is accepted
 * once, so a captured delivery cannot be replayed.
 */
export const webhookRoutes = new Hono<AppEnv>().post("/consolidate", async (c) => {
  const { security, db, notifier, background } = c.var.deps;
  if (!security.webhook) throw notFound("webhook", "consolidate");
  const body = await c.req.text();
  const check = await verifyWebhook(security.webhook.secret, c.req.header("webhook-signature"), body, security.webhook.toleranceSeconds);
  if (!check.ok) throw unauthorized(check.reason);
  const { app_id, user_id, session_id } = parseInput(ConsolidateSchema, parseJson(body), "body");
  const window = sql`now() - make_interval(secs => ${security.webhook.toleranceSeconds * 2})`;
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.receivedAt, window));
  // The user it named goes with the record, so erasure removes it too.
  const accepted = await db
    .insert(webhookDeliveries)
    .values({ signature: check.signature, appId: app_id, userId: user_id })
    .onConflictDoNothing()
    .returning();
  if (accepted.length === 0) throw unauthorized("this delivery was already received (replayed signature)");

  // Recorded on the sessions before the event is sent: a lost event is found by the sweep.
  const rows = await requestReflection(db, { appId: app_id, userId: user_id, ...(session_id ? { sessionId: session_id } : {}) });
  if (session_id && rows.length === 0) throw notFound("session", session_id);
  const progress = rows.map((row) => ({ session_id: row.id, app_id, user_id, last_seq: row.lastSeq }));
  background.run(c, "emit webhook reflection", () => notifier.reflect(progress, "webhook"));
  return c.json({ app_id, user_id, sessions: progress.map((row) => row.session_id) }, 202);
});

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("invalid_request", "body: malformed JSON", { issues: [{ field: "body", message: "malformed JSON" }] });
  }
}
