import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { keyed } from "../fixtures/keyed.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const ADMIN = "admin-key-for-key-management-0123456789";

describe("API keys over HTTP (keys required)", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    // Keys remembered for an hour: a revocation must not wait for the cache.
    runtime = await startTestRuntime({ AUTH_REQUIRED: "true", ADMIN_API_KEY: ADMIN, API_KEY_CACHE_SECONDS: "3600" });
  });
  afterAll(() => runtime?.close());

  it("creates a key that works at once, lists it without its secret, and revokes it for the very next request", async () => {
    const created = await keyed(runtime.app, ADMIN, "POST", "/v1/keys", { app_id: "acme", name: "laptop" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ app_id: "acme", name: "laptop", revoked_at: null });
    expect(created.body.key).toMatch(/^mk_[0-9a-f]{64}$/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    const key: string = created.body.key;

    // Used once, so this process remembers it.
    expect((await keyed(runtime.app, key, "GET", "/v1/sessions?user_id=ana")).status).toBe(200);

    const listed = await keyed(runtime.app, ADMIN, "GET", "/v1/keys?app_id=acme");
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((row: { id: string }) => row.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect((await keyed(runtime.app, ADMIN, "GET", "/v1/keys?app_id=globex")).body.keys).toEqual([]);

    const revoked = await keyed(runtime.app, ADMIN, "DELETE", `/v1/keys/${created.body.id}`);
    expect(revoked).toMatchObject({ status: 200, body: { id: created.body.id, revoked: true } });
    expect((await keyed(runtime.app, key, "GET", "/v1/sessions?user_id=ana")).status).toBe(401);
    const again = await keyed(runtime.app, ADMIN, "GET", "/v1/keys?app_id=acme");
    expect(again.body.keys.find((row: { id: string }) => row.id === created.body.id).revoked_at).not.toBeNull();
    expect((await keyed(runtime.app, ADMIN, "DELETE", `/v1/keys/${created.body.id}`)).status).toBe(404);
  });

  it("refuses an app's own key (403) and a request without a key (401)", async () => {
    const app = (await keyed(runtime.app, ADMIN, "POST", "/v1/keys", { app_id: "acme" })).body.key as string;
    for (const [method, path, body] of [
      ["POST", "/v1/keys", { app_id: "acme" }],
      ["GET", "/v1/keys", undefined],
      ["DELETE", "/v1/keys/00000000-0000-4000-8000-000000000000", undefined],
    ] as const) {
      const refused = await keyed(runtime.app, app, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.code).toBe("forbidden");
      expect((await keyed(runtime.app, undefined, method, path, body)).status).toBe(401);
    }
  });

  it("answers bad input with a 400 naming the field, and stores nothing", async () => {
    const before = (await keyed(runtime.app, ADMIN, "GET", "/v1/keys")).body.keys.length;
    const cases: [string, string, unknown, string][] = [
      ["POST", "/v1/keys", {}, "body.app_id"],
      ["POST", "/v1/keys", { app_id: "acme", colour: "red" }, "body.colour"],
      ["POST", "/v1/keys", { app_id: "x".repeat(5000) }, "body.app_id"],
      ["POST", "/v1/keys", { app_id: "acme", name: "" }, "body.name"],
      ["DELETE", "/v1/keys/not-a-uuid", undefined, "path.id"],
      ["GET", "/v1/keys?app_id=", undefined, "query.app_id"],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await keyed(runtime.app, ADMIN, method, path, body);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(JSON.stringify(answer.body.error.details)).toContain(field);
    }
    expect((await keyed(runtime.app, ADMIN, "GET", "/v1/keys")).body.keys.length).toBe(before);
  });
});

describe("API keys over HTTP (keyless loopback)", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startTestRuntime();
  });
  afterAll(() => runtime?.close());

  it("lets the local operator manage keys while keys are off", async () => {
    const created = await keyed(runtime.app, undefined, "POST", "/v1/keys", { app_id: "default" });
    expect(created.status).toBe(201);
    expect((await keyed(runtime.app, created.body.key, "GET", "/v1/sessions?user_id=ana")).status).toBe(200);
    expect((await keyed(runtime.app, undefined, "DELETE", `/v1/keys/${created.body.id}`)).status).toBe(200);
    expect((await keyed(runtime.app, created.body.key, "GET", "/v1/sessions?user_id=ana")).status).toBe(401);
  });
});
