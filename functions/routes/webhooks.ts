import { lt, sql } from "drizzle-orm";
import { z } from "zod";
import { verifyWebhook } from "../../src/auth/webhook-signature.js";
import { webhookDeliveries } from "../../src/db/schema/index.js";
import { notFound, unauthorized } from "../../src/errors.js";
import { requestReflection } from "../../src/pipeline/reflection-backlog.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, handlerReadJsonBody, jsonAnswer } from "../contract/define-route.js";
import { invalidInput, parseInput } from "../contract/input.js";

export const ConsolidateSchema = z.strictObject({
  app_id: ExternalIdSchema.default("default"),
  user_id: ExternalIdSchema,
  /** One session; without it, every session of the user with events not yet reflected. */
  session_id: z.uuid().optional(),
});

const consolidate = defineRoute({
  method: "post",
  path: "/consolidate",
  tags: ["operations"],
  summary: "Signed request for deep reflection (`webhook-signature` header, HMAC over the body)",
  public: true,
  request: { body: handlerReadJsonBody(ConsolidateSchema) },
  responses: {
    202: jsonAnswer(
      "The sessions sent to deep reflection",
      z.object({ app_id: z.string(), user_id: z.string(), sessions: z.array(z.uuid()) }),
    ),
    401: jsonAnswer("The signature is missing, wrong, outside its time window, or replayed", z.object({ error: z.unknown() })),
  },
});

/**
 * Webhook-triggered consolidation: an external system asks for deep reflection. Authenticated by
 * an HMAC signature with a timestamp window instead of an API key; each signature is accepted
 * once, so a captured delivery cannot be replayed.
 */
export const webhookRoutes = apiRoutes<"security" | "db" | "notifier" | "background">().openapi(consolidate, async (c) => {
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
    throw invalidInput([{ field: "body", message: "malformed JSON" }]);
  }
}
