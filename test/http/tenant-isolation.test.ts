import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createApiKey } from "../../src/auth/api-keys.js";
import { keyed } from "../fixtures/keyed.js";
import { message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/** Tenants: two apps, and the same user id in both (a different person in each). */
const TENANTS = [
  { app: "acme", user: "alice", marker: "zqacmealice" },
  { app: "acme", user: "bob", marker: "zqacmebob" },
  { app: "globex", user: "alice", marker: "zqglobexalice" },
] as const;
type Tenant = (typeof TENANTS)[number];

const ADMIN = "admin-key-for-isolation-tests-0123456789";
let runtime: Runtime;
const keys: Record<string, string> = {};
/** Every resource created so far, with its owner. */
const sessions: { id: string; tenant: Tenant }[] = [];
const memories: { id: string; tenant: Tenant }[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({ AUTH_REQUIRED: "true", ADMIN_API_KEY: ADMIN, RATE_LIMIT_PER_MINUTE: "0" });
  for (const app of ["acme", "globex"]) keys[app] = (await createApiKey(runtime.database.db, { appId: app, name: "isolation" })).key;
});
afterAll(() => runtime.close());

const tenant = fc.constantFrom(...TENANTS);
const word = fc.constantFrom("garden", "violin", "Porto", "marathon", "chess", "coffee");
const operation = fc.oneof(
  fc.record({ kind: fc.constant("session" as const), tenant }),
  fc.record({ kind: fc.constant("append" as const), tenant, word }),
  fc.record({ kind: fc.constant("memory" as const), tenant, word }),
  fc.record({ kind: fc.constant("search" as const), tenant, word }),
  fc.record({ kind: fc.constant("context" as const), tenant, word }),
  fc.record({ kind: fc.constant("list" as const), tenant }),
  fc.record({ kind: fc.constant("read-session" as const), tenant, pick: fc.nat() }),
  fc.record({ kind: fc.constant("read-memory" as const), tenant, pick: fc.nat() }),
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

const others = (self: Tenant) => TENANTS.filter((other) => other !== self).map((other) => other.marker);

/** Runs one operation as `tenant` and checks that nothing of another tenant came back. */
async function apply(op: Operation): Promise<void> {
  const self = op.tenant;
  const key = keys[self.app];
  const send = (method: string, path: string, body?: unknown) => keyed(runtime.app, key, method, path, body);
  let answer: { status: number; body: unknown };
  switch (op.kind) {
    case "session": {
      answer = await send("POST", "/v1/sessions", { user_id: self.user });
      expect(answer.status).toBe(201);
      sessions.push({ id: (answer.body as { id: string }).id, tenant: self });
      break;
    }
    case "append": {
      const own = sessions.filter((session) => session.tenant === self).at(-1);
      if (!own) return;
      answer = await send("POST", `/v1/sessions/${own.id}/events`, { events: [message("user", `${self.marker} talks about ${op.word}.`)] });
      break;
    }
    case "memory": {
      answer = await send("POST", "/v1/memories", { user_id: self.user, type: "insight", content: `${self.marker} likes ${op.word} a lot.` });
      const created = (answer.body as { memory?: { id: string } }).memory;
      if (created) memories.push({ id: created.id, tenant: self });
      break;
    }
    case "search":
      answer = await send("POST", "/v1/memories/search", { user_id: self.user, query: `${op.word} ${others(self).join(" ")}`, min_relevance: 0 });
      break;
    case "context":
      answer = await send("POST", "/v1/context", { user_id: self.user, query: `${op.word} ${others(self).join(" ")}`, max_tokens: 1500 });
      break;
    case "list":
      answer = await send("GET", `/v1/memories?user_id=${self.user}&limit=500`);
      expect((await send("GET", `/v1/sessions?user_id=${self.user}`)).status).toBe(200);
      break;
    case "read-session":
    case "read-memory": {
      const pool = op.kind === "read-session" ? sessions : memories;
      const target = pool[op.pick % Math.max(1, pool.length)];
      if (!target) return;
      answer = await send("GET", op.kind === "read-session" ? `/v1/sessions/${target.id}/events` : `/v1/memories/${target.id}`);
      // Within one app, the app's key reaches all its users; across apps, nothing exists.
      expect(answer.status).toBe(target.tenant.app === self.app ? 200 : 404);
      return;
    }
  }
  expect(answer.status, `${op.kind} as ${self.app}/${self.user}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  const text = JSON.stringify(answer.body);
  for (const marker of others(self)) expect(text, `${op.kind} as ${self.app}/${self.user}`).not.toContain(marker);
}

describe("tenant isolation", () => {
  it("never shows one tenant another's sessions, events or memories, whatever the order of operations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 25 }), async (operations) => {
        for (const op of operations) await apply(op);
        // Again after the pipeline has derived memories from the appended events.
        const asAdmin = { request: (path: string) => runtime.app.request(path, { headers: { authorization: `Bearer ${ADMIN}` } }) };
        for (const self of TENANTS) await waitForSettled(asAdmin, self.user);
        for (const self of TENANTS) {
          for (const kind of ["search", "context", "list"] as const) await apply({ kind, tenant: self, word: "garden" } as Operation);
        }
      }),
      // No shrinking: a failure reports the sequence as it ran (shrinking re-runs the pipeline many times).
      { numRuns: 8, endOnFailure: true },
    );
  }, 300_000);
});

describe("the same user id in two apps", () => {
  it("gets its own pipeline runs: both apps' memories are embedded", async () => {
    const asAdmin = { request: (path: string) => runtime.app.request(path, { headers: { authorization: `Bearer ${ADMIN}` } }) };
    for (const app of ["acme", "globex"]) {
      const created = await keyed(runtime.app, keys[app], "POST", "/v1/sessions", { user_id: "twin" });
      await keyed(runtime.app, keys[app], "POST", `/v1/sessions/${created.body.id}/events`, { events: [message("user", `The ${app} twin keeps bees.`)] });
    }
    await waitForSettled(asAdmin, "twin");
    for (const app of ["acme", "globex"]) {
      const listed = await keyed(runtime.app, keys[app], "GET", "/v1/memories?user_id=twin");
      expect(listed.body.memories.length).toBeGreaterThan(0);
      expect(listed.body.memories.every((memory: { embedded: boolean }) => memory.embedded)).toBe(true);
    }
  });
});
