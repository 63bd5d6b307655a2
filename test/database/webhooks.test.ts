import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createApiKey } from "../../src/auth/api-keys.js";
import { signWebhook, verifyWebhook } from "../../src/auth/webhook-signature.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

const SECRET = "webhook-secret-for-tests";
let runtime: Runtime;
beforeAll(async () => {
  // A high importance threshold: reflection happens only when asked for.
  runtime = await startTestRuntime({ WEBHOOK_SECRET: SECRET, AUTH_REQUIRED: "true", REFLECTION_IMPORTANCE_THRESHOLD: "1000" });
});
afterAll(() => runtime.close());

const now = () => Math.floor(Date.now() / 1000);
async function deliver(body: string, signature: string | undefined) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature) headers["webhook-signature"] = signature;
  const response = await runtime.app.request("/v1/webhooks/consolidate", { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as any };
}

describe("POST /v1/webhooks/consolidate", () => {
  it("triggers deep reflection on a valid signature and refuses the same delivery again", async () => {
    // The API needs a key here; the webhook does not (its signature is its authentication).
    const { key } = await createApiKey(runtime.database.db, { appId: "default", name: "webhook-test" });
    const withKey = {
      request: (path: string, init: RequestInit = {}) =>
        runtime.app.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` } }),
    };
    const sessionId = await createSession(withKey, "hooked");
    await call(withKey, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I moved to Lisbon last year."), message("user", "I work as a farrier.")],
    });
    await waitForSettled(withKey, "hooked");
    expect((await call(withKey, "GET", "/v1/memories?user_id=hooked&type=semantic")).body.memories).toEqual([]);

    const body = JSON.stringify({ user_id: "hooked" });
    const signature = await signWebhook(SECRET, now(), body);
    const accepted = await deliver(body, signature);
    expect(accepted).toEqual({ status: 202, body: { app_id: "default", user_id: "hooked", sessions: [sessionId] } });
    await waitForSettled(withKey, "hooked");
    const facts = (await call(withKey, "GET", "/v1/memories?user_id=hooked&type=semantic")).body.memories;
    expect(facts.map((fact: { content: string }) => fact.content).join(" ")).toContain("Lisbon");

    const replayed = await deliver(body, signature);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.message).toMatch(/already received/);
  });

  it("refuses missing, forged and stale signatures with 401", async () => {
    const body = JSON.stringify({ user_id: "hooked" });
    expect((await deliver(body, undefined)).status).toBe(401);
    expect((await deliver(body, await signWebhook("another-secret-entirely", now(), body))).status).toBe(401);
    expect((await deliver(JSON.stringify({ user_id: "someone-else" }), await signWebhook(SECRET, now(), body))).status).toBe(401);
    const stale = await deliver(body, await signWebhook(SECRET, now() - 3600, body));
    expect(stale.status).toBe(401);
    expect(stale.body.error.message).toMatch(/window/);
  });

  it("validates the body after the signature, naming the field", async () => {
    const body = JSON.stringify({ user_id: "hooked", session_id: "not-a-uuid" });
    const answer = await deliver(body, await signWebhook(SECRET, now(), body));
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.issues[0].field).toBe("body.session_id");
    const unknown = JSON.stringify({ user_id: "hooked", session_id: "00000000-0000-4000-8000-000000000000" });
    expect((await deliver(unknown, await signWebhook(SECRET, now(), unknown))).status).toBe(404);
  });

  it("checks signatures against hand-computed values", async () => {
    // HMAC-SHA256("secret", "1700000000.{}") computed independently with openssl.
    const header = await signWebhook("secret", 1_700_000_000, "{}");
    expect(header).toBe(`t=1700000000,v1=${EXPECTED_HMAC}`);
    expect(await verifyWebhook("secret", header, "{}", 300, 1_700_000_100)).toEqual({ ok: true, signature: EXPECTED_HMAC });
    expect((await verifyWebhook("secret", header, "{}", 300, 1_700_000_400)).ok).toBe(false);
  });
});

const EXPECTED_HMAC = "b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163";
