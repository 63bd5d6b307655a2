import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createApiKey, revokeApiKey } from "../../src/auth/api-keys.js";
import { keyed } from "../fixtures/keyed.js";
import { message, startTestRuntime } from "../fixtures/runtime.js";

const ADMIN = "admin-key-for-tests-0123456789abcdef";
let runtime: Runtime;
let acme: string;
let globex: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ AUTH_REQUIRED: "true", ADMIN_API_KEY: ADMIN, API_KEY_CACHE_SECONDS: "0", EXECUTOR_ENABLED: "false" });
  acme = (await createApiKey(runtime.database.db, { appId: "acme", name: "test" })).key;
  globex = (await createApiKey(runtime.database.db, { appId: "globex", name: "test" })).key;
});
afterAll(() => runtime.close());

describe("API keys", () => {
  it("refuses a missing or wrong key with 401 and a JSON error", async () => {
    for (const key of [undefined, "mk_not-a-real-key", `${acme}x`]) {
      const { status, body } = await keyed(runtime.app, key, "POST", "/v1/sessions", { user_id: "u" });
      expect(status).toBe(401);
      expect(body.error.code).toBe("unauthorized");
    }
    const listed = await keyed(runtime.app, acme, "GET", "/v1/sessions?user_id=u");
    expect(listed.body.sessions).toEqual([]);
  });

  it("accepts the key as a bearer token or x-api-key and scopes the request to its app", async () => {
    const created = await keyed(runtime.app, acme, "POST", "/v1/sessions", { user_id: "ann" });
    expect(created.status).toBe(201);
    expect(created.body.app_id).toBe("acme");
    const viaHeader = await runtime.app.request(`/v1/sessions/${created.body.id}`, { headers: { "x-api-key": acme } });
    expect(viaHeader.status).toBe(200);
  });

  it("answers 404, never 403, for another app's resources, and changes nothing", async () => {
    const session = (await keyed(runtime.app, acme, "POST", "/v1/sessions", { user_id: "bo" })).body;
    await keyed(runtime.app, acme, "POST", `/v1/sessions/${session.id}/events`, {
      events: [message("user", "Acme secret: the launch is in May.")],
    });
    const memory = (await keyed(runtime.app, acme, "POST", "/v1/memories", { user_id: "bo", type: "insight", content: "Bo prefers tea." }))
      .body.memory;

    const attempts: [string, string, unknown?][] = [
      ["GET", `/v1/sessions/${session.id}`],
      ["GET", `/v1/sessions/${session.id}/events`],
      ["POST", `/v1/sessions/${session.id}/events`, { events: [message("user", "injected")] }],
      ["POST", `/v1/sessions/${session.id}/end`],
      ["PATCH", `/v1/sessions/${session.id}/state`, { session: { stolen: true } }],
      ["GET", `/v1/memories/${memory.id}`],
      ["GET", `/v1/memories/${memory.id}/history`],
      ["PATCH", `/v1/memories/${memory.id}`, { pinned: true }],
      ["DELETE", `/v1/memories/${memory.id}`],
      ["GET", "/v1/memories?user_id=bo&app_id=acme"],
      ["POST", "/v1/memories/search", { user_id: "bo", app_id: "acme", query: "tea" }],
      ["POST", "/v1/context", { user_id: "bo", app_id: "acme", query: "launch", max_tokens: 500 }],
      ["POST", "/v1/memories", { user_id: "bo", app_id: "acme", type: "insight", content: "planted" }],
      ["DELETE", "/v1/users/bo?app_id=acme"],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await keyed(runtime.app, globex, method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
    }
    // The same user id under globex is another person: nothing of acme's shows.
    const search = await keyed(runtime.app, globex, "POST", "/v1/memories/search", { user_id: "bo", query: "tea" });
    expect(search.body.memories).toEqual([]);

    const events = await keyed(runtime.app, acme, "GET", `/v1/sessions/${session.id}/events`);
    expect(events.body.events.map((event: { content: string }) => event.content)).toEqual(["Acme secret: the launch is in May."]);
    const stored = await keyed(runtime.app, acme, "GET", `/v1/memories/${memory.id}`);
    expect(stored.body).toMatchObject({ pinned: false, expired_at: null });
    expect((await keyed(runtime.app, acme, "GET", `/v1/sessions/${session.id}`)).body).toMatchObject({ ended_at: null, state: {} });
  });

  it("lets the admin key act in any app", async () => {
    const session = (await keyed(runtime.app, acme, "POST", "/v1/sessions", { user_id: "cy" })).body;
    expect((await keyed(runtime.app, ADMIN, "GET", `/v1/sessions/${session.id}`)).status).toBe(200);
    expect((await keyed(runtime.app, ADMIN, "GET", "/v1/sessions?user_id=cy&app_id=acme")).body.sessions).toHaveLength(1);
  });

  it("stops accepting a revoked key", async () => {
    const created = await createApiKey(runtime.database.db, { appId: "acme", name: "short-lived" });
    expect((await keyed(runtime.app, created.key, "GET", "/v1/sessions?user_id=u")).status).toBe(200);
    expect(await revokeApiKey(runtime.database.db, created.id)).toBe(true);
    expect((await keyed(runtime.app, created.key, "GET", "/v1/sessions?user_id=u")).status).toBe(401);
  });
});

describe("rate limits", () => {
  it("answers 429 with retry-after once a key's burst is spent", async () => {
    const limited = await startTestRuntime({
      AUTH_REQUIRED: "true",
      RATE_LIMIT_PER_MINUTE: "60",
      RATE_LIMIT_BURST: "3",
      EXECUTOR_ENABLED: "false",
    });
    try {
      const key = (await createApiKey(limited.database.db, { appId: "acme", name: "limited" })).key;
      const other = (await createApiKey(limited.database.db, { appId: "acme", name: "other" })).key;
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await keyed(limited.app, key, "GET", "/v1/sessions?user_id=u")).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await keyed(limited.app, key, "POST", "/v1/sessions", { user_id: "u" });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Another key has its own bucket; the refused request stored nothing.
      expect((await keyed(limited.app, other, "GET", "/v1/sessions?user_id=u")).body.sessions).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});

describe("abuse: limits before any authentication work", () => {
  it("answers 429 to a key prefix from an address after AUTH_FAILURES_PER_MINUTE invalid keys with it", async () => {
    const limited = await startTestRuntime({ AUTH_REQUIRED: "true", AUTH_FAILURES_PER_MINUTE: "3", EXECUTOR_ENABLED: "false" });
    try {
      const statuses: number[] = [];
      // One public prefix (the first 10 characters), four guesses at the secret behind it.
      for (let i = 0; i < 4; i++) statuses.push((await keyed(limited.app, `mk_guess00${i}`, "GET", "/v1/sessions?user_id=u")).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const refused = await keyed(limited.app, "mk_guess004", "GET", "/v1/sessions?user_id=u");
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toContain("invalid API keys with this prefix");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close().catch(() => undefined);
    }
  });

  it("still checks and serves valid keys from an address that is sending bad ones (one shared address, as behind a proxy)", async () => {
    // No key cache: every valid key below is looked up, not remembered.
    const shared = await startTestRuntime({
      AUTH_REQUIRED: "true",
      AUTH_FAILURES_PER_MINUTE: "3",
      API_KEY_CACHE_SECONDS: "0",
      EXECUTOR_ENABLED: "false",
    });
    try {
      const valid = (await createApiKey(shared.database.db, { appId: "acme", name: "valid" })).key;
      const other = (await createApiKey(shared.database.db, { appId: "acme", name: "other" })).key;
      // A key this process has never seen, first sent after the address is throttled.
      const fresh = (await createApiKey(shared.database.db, { appId: "acme", name: "fresh" })).key;
      const status = async (key: string) => (await keyed(shared.app, key, "GET", "/v1/sessions?user_id=u")).status;
      expect([await status(valid), await status(other)]).toEqual([200, 200]);
      // Random keys, 10 a burst: the address's allowance is spent after 3.
      const guesses: number[] = [];
      for (let i = 0; i < 10; i++) guesses.push(await status(`mk_${crypto.randomUUID().replaceAll("-", "")}`));
      expect(guesses).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
      for (let i = 0; i < 5; i++) expect(await status(valid)).toBe(200);
      expect(await status(fresh)).toBe(200);
      // Guessing the secret behind one key's public prefix throttles the guesses, not the key.
      const underPrefix: number[] = [];
      for (let i = 0; i < 5; i++) underPrefix.push(await status(`${valid.slice(0, 10)}${"0".repeat(54)}${i}`));
      expect(underPrefix).toEqual([429, 429, 429, 429, 429]);
      // The key behind that prefix is still looked up and served (no cache here): its owner is not locked out.
      expect(await status(valid)).toBe(200);
      expect(await status(other)).toBe(200);
      expect(await status(fresh)).toBe(200);
    } finally {
      await shared.close();
    }
  });

  it("limits per client address before authentication; x-forwarded-for counts only behind TRUST_PROXY", async () => {
    const request = (app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> }, forwardedFor: string) =>
      app.request("/v1/sessions?user_id=u", { headers: { "x-forwarded-for": forwardedFor, authorization: "Bearer mk_not_a_key" } });
    const direct = await startTestRuntime({
      AUTH_REQUIRED: "true",
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "60",
      RATE_LIMIT_ADDRESS_BURST: "2",
      AUTH_FAILURES_PER_MINUTE: "0",
      EXECUTOR_ENABLED: "false",
    });
    try {
      // Without a trusted proxy a client cannot escape its bucket by inventing addresses.
      const statuses = [];
      for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) statuses.push((await request(direct.app, address)).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await direct.close();
    }
    const proxied = await startTestRuntime({
      AUTH_REQUIRED: "true",
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "60",
      RATE_LIMIT_ADDRESS_BURST: "2",
      AUTH_FAILURES_PER_MINUTE: "0",
      TRUST_PROXY: "1",
      EXECUTOR_ENABLED: "false",
    });
    try {
      // Behind one trusted proxy the last x-forwarded-for entry is the client: each has its own bucket.
      const statuses = [];
      for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "spoofed, 10.0.0.1", "10.0.0.1"])
        statuses.push((await request(proxied.app, address)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
    } finally {
      await proxied.close();
    }
  });
});
