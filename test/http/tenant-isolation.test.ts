import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
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
/** App-level data (instructions) carries the app's marker: every user of the app may see it. */
const appMarker = (app: string) => `zqapp${app}`;

const ADMIN = "admin-key-for-isolation-tests-0123456789";
let runtime: Runtime;
const keys: Record<string, string> = {};
/** Every resource created so far, with its owner. */
const sessions: { id: string; tenant: Tenant }[] = [];
const memories: { id: string; tenant: Tenant }[] = [];
/** One entity per tenant, named by its marker (written directly: the routes that read the graph are what is checked). */
const entities: { id: string; tenant: Tenant }[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    AUTH_REQUIRED: "true",
    ADMIN_API_KEY: ADMIN,
    RATE_LIMIT_PER_MINUTE: "0",
    WEBHOOK_SECRET: "isolation-webhook-secret",
  });
  for (const app of ["acme", "globex"]) keys[app] = (await createApiKey(runtime.database.db, { appId: app, name: "isolation" })).key;
  for (const tenant of TENANTS) {
    const id = randomUUID();
    await runtime.database.db.execute(
      sql`INSERT INTO entities (id, app_id, user_id, name, name_key, kind, keys, valid_at)
          VALUES (${id}, ${tenant.app}, ${tenant.user}, ${tenant.marker}, ${tenant.marker}, 'person', ARRAY[${tenant.marker}]::text[], now())`,
    );
    entities.push({ id, tenant });
  }
});
afterAll(() => runtime.close());

interface Draw {
  self: Tenant;
  word: string;
  pick: number;
}

/** A request one tenant makes; `target` is the resource it names by id, when it names one. */
interface Planned {
  method: string;
  path: string;
  body?: unknown;
  target?: { tenant: Tenant };
  /** Statuses that are fine besides 2xx (an ended session refuses appends: 409). */
  alsoFine?: number[];
  /** Reads a stream: only its first chunk is checked. */
  stream?: boolean;
  /** Authenticates otherwise (the signed webhook): sent without the key, must refuse. */
  unsigned?: boolean;
  /** The operator's alone (API keys): an app's key is refused with 403. */
  operatorOnly?: boolean;
}

const q = (self: Tenant, extra: Record<string, string> = {}) => new URLSearchParams({ user_id: self.user, ...extra }).toString();
const pickFrom = <T>(pool: T[], pick: number): T | undefined => pool[pick % Math.max(1, pool.length)];
const ownSession = (self: Tenant) => sessions.filter((session) => session.tenant === self).at(-1);

/**
 * One request per documented operation, as a tenant would make it. Keyed like the OpenAPI list:
 * a route added to the API without a request here fails the completeness check below, so no
 * route escapes the isolation property.
 */
const REQUESTS: Record<string, (draw: Draw) => Planned | undefined> = {
  "GET /healthz": () => ({ method: "GET", path: "/healthz" }),
  "GET /livez": () => ({ method: "GET", path: "/livez" }),
  "GET /readyz": () => ({ method: "GET", path: "/readyz" }),
  "POST /v1/sessions": ({ self }) => ({
    method: "POST",
    path: "/v1/sessions",
    body: { user_id: self.user, metadata: { note: self.marker } },
  }),
  "GET /v1/sessions": ({ self }) => ({ method: "GET", path: `/v1/sessions?${q(self)}` }),
  "GET /v1/sessions/:id": ({ pick }) => bySession("GET", pick, ""),
  "POST /v1/sessions/:id/end": ({ pick }) => bySession("POST", pick, "/end"),
  "PATCH /v1/sessions/:id/state": ({ self, pick }) => {
    // Within one app the key writes on behalf of the session's user: what it writes is that user's
    // data from then on. Across apps the write must fail, so the writer's own marker must never leak.
    const owner = pickFrom(sessions, pick)?.tenant;
    const marker = owner && owner.app === self.app ? owner.marker : self.marker;
    return bySession("PATCH", pick, "/state", { session: { note: marker }, user: { note: marker } });
  },
  "POST /v1/sessions/:id/events": ({ self, word }) => {
    const own = ownSession(self);
    return (
      own && {
        method: "POST",
        path: `/v1/sessions/${own.id}/events`,
        body: { events: [message("user", `${self.marker} talks about ${word}.`)] },
        target: own,
        alsoFine: [409],
      }
    );
  },
  "GET /v1/sessions/:id/events": ({ pick }) => bySession("GET", pick, "/events"),
  "POST /v1/sessions/:id/events/:seq/redact": ({ pick }) => {
    // A session with no event yet answers 404 to its own tenant too.
    const planned = bySession("POST", pick, "/events/1/redact", { reason: "isolation check" });
    return planned && { ...planned, alsoFine: [404] };
  },
  "POST /v1/context": ({ self, word }) => ({
    method: "POST",
    path: "/v1/context",
    body: { user_id: self.user, query: `${word} ${others(self).join(" ")}`, max_tokens: 1500 },
  }),
  "POST /v1/memories/search": ({ self, word }) => ({
    method: "POST",
    path: "/v1/memories/search",
    body: { user_id: self.user, query: `${word} ${others(self).join(" ")}`, min_relevance: 0 },
  }),
  "GET /v1/memories/index": ({ self }) => ({ method: "GET", path: `/v1/memories/index?${q(self)}` }),
  "POST /v1/memories/expand": ({ self }) =>
    memories.length === 0
      ? undefined
      : { method: "POST", path: "/v1/memories/expand", body: { user_id: self.user, ids: memories.slice(-20).map((memory) => memory.id) } },
  "POST /v1/adk/search_memory": ({ self, word }) => ({
    method: "POST",
    path: "/v1/adk/search_memory",
    body: { user_id: self.user, query: `${word} ${others(self).join(" ")}` },
  }),
  "POST /v1/memories": ({ self, word }) => ({
    method: "POST",
    path: "/v1/memories",
    body: { user_id: self.user, type: "insight", content: `${self.marker} likes ${word} a lot.` },
  }),
  "GET /v1/memories": ({ self }) => ({ method: "GET", path: `/v1/memories?${q(self, { limit: "500", include_expired: "true" })}` }),
  "GET /v1/memories/health": ({ self }) => ({ method: "GET", path: `/v1/memories/health?${q(self)}` }),
  "GET /v1/memories/retention": ({ self }) => ({ method: "GET", path: `/v1/memories/retention?${q(self)}` }),
  "GET /v1/memories/:id": ({ pick }) => byMemory("GET", pick, ""),
  "PATCH /v1/memories/:id": ({ pick }) => byMemory("PATCH", pick, "", { pinned: true }),
  "DELETE /v1/memories/:id": ({ pick }) => byMemory("DELETE", pick, ""),
  "GET /v1/memories/:id/history": ({ pick }) => byMemory("GET", pick, "/history"),
  "GET /v1/entities": ({ self }) => ({ method: "GET", path: `/v1/entities?${q(self, { q: "zq" })}` }),
  "GET /v1/entities/:id": ({ pick }) => {
    const target = pickFrom(entities, pick);
    return target && { method: "GET", path: `/v1/entities/${target.id}`, target };
  },
  "PUT /v1/instructions/:key": ({ self }) => ({
    method: "PUT",
    path: "/v1/instructions/greeting",
    body: { content: `Greet warmly. ${appMarker(self.app)}` },
  }),
  "GET /v1/instructions/:key": () => ({ method: "GET", path: "/v1/instructions/greeting", alsoFine: [404] }),
  "GET /v1/instructions/:key/versions": () => ({ method: "GET", path: "/v1/instructions/greeting/versions", alsoFine: [404] }),
  "POST /v1/decay/run": ({ self }) => ({
    method: "POST",
    path: "/v1/decay/run",
    body: { user_id: self.user, dry_run: true, min_age_days: 0, threshold: 1 },
  }),
  "GET /v1/pipeline/status": ({ self }) => ({ method: "GET", path: `/v1/pipeline/status?${q(self)}` }),
  "GET /v1/pipeline/runs": ({ self }) => ({ method: "GET", path: `/v1/pipeline/runs?${q(self)}` }),
  "POST /v1/pipeline/retry": ({ self }) => ({ method: "POST", path: "/v1/pipeline/retry", body: { user_id: self.user } }),
  "GET /v1/pipeline/jobs": ({ self }) => ({ method: "GET", path: `/v1/pipeline/jobs?${q(self)}` }),
  "GET /v1/usage": ({ self, pick }) => ({ method: "GET", path: pick % 2 === 0 ? `/v1/usage?${q(self)}` : "/v1/usage" }),
  "POST /v1/users/:user_id/rebuild": ({ self }) => ({ method: "POST", path: `/v1/users/${self.user}/rebuild`, body: {} }),
  "DELETE /v1/users/:user_id": ({ self, pick }) => (pick % 5 === 0 ? { method: "DELETE", path: `/v1/users/${self.user}` } : undefined),
  "GET /v1/users/:user_id/export": ({ self }) => ({ method: "GET", path: `/v1/users/${self.user}/export`, stream: true }),
  "GET /v1/users/:user_id/facts/audit": ({ self }) => ({ method: "GET", path: `/v1/users/${self.user}/facts/audit` }),
  "POST /v1/users/:user_id/facts/audit": ({ self }) => ({ method: "POST", path: `/v1/users/${self.user}/facts/audit`, body: {} }),
  "GET /v1/live": ({ self }) => ({ method: "GET", path: `/v1/live?${q(self)}`, stream: true }),
  "POST /v1/mcp": ({ self, word }) => ({
    method: "POST",
    path: "/v1/mcp",
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search_memory", arguments: { user_id: self.user, query: `${word} ${others(self).join(" ")}` } },
    },
  }),
  "POST /v1/keys": ({ self }) => ({ method: "POST", path: "/v1/keys", body: { app_id: self.app }, operatorOnly: true }),
  "GET /v1/keys": ({ self }) => ({ method: "GET", path: `/v1/keys?app_id=${self.app}`, operatorOnly: true }),
  "DELETE /v1/keys/:id": () => ({ method: "DELETE", path: `/v1/keys/${randomUUID()}`, operatorOnly: true }),
  "POST /v1/webhooks/consolidate": ({ self }) => ({
    method: "POST",
    path: "/v1/webhooks/consolidate",
    body: { user_id: self.user },
    unsigned: true,
  }),
};

function bySession(method: string, pick: number, suffix: string, body?: unknown): Planned | undefined {
  const target = pickFrom(sessions, pick);
  return target && { method, path: `/v1/sessions/${target.id}${suffix}`, target, ...(body === undefined ? {} : { body }) };
}

function byMemory(method: string, pick: number, suffix: string, body?: unknown): Planned | undefined {
  const target = pickFrom(memories, pick);
  return (
    target && { method, path: `/v1/memories/${target.id}${suffix}`, target, alsoFine: [404, 409], ...(body === undefined ? {} : { body }) }
  );
}

const others = (self: Tenant) => TENANTS.filter((other) => other !== self).map((other) => other.marker);
const otherApps = (self: Tenant) => ["acme", "globex"].filter((app) => app !== self.app).map(appMarker);
const operationKey = (operation: { method: string; path: string }) => `${operation.method.toUpperCase()} ${operation.path}`;

/** Every `app_id` anywhere in a JSON answer. */
function appIds(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) appIds(item, found);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "app_id" && typeof item === "string") found.push(item);
      else appIds(item, found);
    }
  }
  return found;
}

async function send(self: Tenant, planned: Planned): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (!planned.unsigned) headers["authorization"] = `Bearer ${keys[self.app]}`;
  const response = await runtime.app.request(planned.path, {
    method: planned.method,
    headers,
    ...(planned.body === undefined ? {} : { body: JSON.stringify(planned.body) }),
  });
  if (!planned.stream || !response.body) return { status: response.status, text: await response.text() };
  // A stream (live events, an export): its first chunk, then hang up.
  const reader = response.body.getReader();
  const first = await Promise.race([
    reader.read(),
    new Promise<{ value: undefined }>((resolve) => setTimeout(() => resolve({ value: undefined }), 5000)),
  ]);
  await reader.cancel();
  return { status: response.status, text: first.value ? new TextDecoder().decode(first.value) : "" };
}

/** Runs one operation as one tenant and checks it saw nothing of another tenant. */
async function apply(key: string, draw: Draw): Promise<void> {
  const planned = REQUESTS[key]?.(draw);
  if (!planned) return;
  const { self } = draw;
  const { status, text } = await send(self, planned);
  const where = `${key} as ${self.app}/${self.user} → ${status} ${text.slice(0, 300)}`;
  if (planned.unsigned) {
    expect(status, where).toBe(401);
    return;
  }
  if (planned.operatorOnly) {
    expect(status, where).toBe(403);
    return;
  }
  if (planned.target && planned.target.tenant.app !== self.app) {
    // Another app's resource does not exist for this key: 404, never 403, and nothing changed.
    expect(status, where).toBe(404);
    return;
  }
  expect(status < 300 || (planned.alsoFine ?? []).includes(status) || (planned.target !== undefined && status === 404), where).toBe(true);
  if (key === "POST /v1/sessions" && status === 201) sessions.push({ id: (JSON.parse(text) as { id: string }).id, tenant: self });
  if (key === "POST /v1/memories" && status === 201)
    memories.push({ id: (JSON.parse(text) as { memory: { id: string } }).memory.id, tenant: self });
  // Within one app the key reaches every user of the app by id, by design; markers are checked
  // for everything else.
  if (planned.target && planned.target.tenant !== self) return;
  for (const marker of [...others(self), ...otherApps(self)]) expect(text, where).not.toContain(marker);
  if (!planned.stream && text.startsWith("{")) for (const app of appIds(JSON.parse(text))) expect(app, where).toBe(self.app);
}

const KEYS = Object.keys(REQUESTS);
const draw = fc.record({
  self: fc.constantFrom(...TENANTS),
  word: fc.constantFrom("garden", "violin", "Porto", "marathon", "chess", "coffee"),
  pick: fc.nat(),
});

describe("tenant isolation", () => {
  it("has a request for every documented route (a new route cannot escape the property)", async () => {
    const document = (await (await runtime.app.request("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => operationKey({ method, path: path.replace(/\{(\w+)\}/g, ":$1") })),
    );
    expect(documented.filter((key) => !(key in REQUESTS))).toEqual([]);
    expect(KEYS.filter((key) => !documented.includes(key))).toEqual([]);
  });

  it("never shows one tenant another's data on any route, whatever the order of operations", async () => {
    // Every route once per tenant first, so each is exercised whatever the random draws.
    for (const self of TENANTS) for (const key of KEYS) await apply(key, { self, word: "garden", pick: sessions.length + memories.length });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom(...KEYS), draw }), { minLength: 10, maxLength: 40 }),
        async (operations) => {
          for (const { key, draw: drawn } of operations) await apply(key, drawn);
          // Again after the pipeline has derived memories from the appended events.
          const asAdmin = { request: (path: string) => runtime.app.request(path, { headers: { authorization: `Bearer ${ADMIN}` } }) };
          for (const self of TENANTS) await waitForSettled(asAdmin, self.user);
          for (const self of TENANTS) {
            for (const key of [
              "POST /v1/memories/search",
              "POST /v1/context",
              "GET /v1/memories",
              "GET /v1/users/:user_id/export",
              "GET /v1/users/:user_id/facts/audit",
              "GET /v1/pipeline/runs",
              "GET /v1/pipeline/jobs",
            ]) {
              await apply(key, { self, word: "garden", pick: 0 });
            }
          }
        },
      ),
      // No shrinking: a failure reports the sequence as it ran (shrinking re-runs the pipeline many times).
      { numRuns: 6, endOnFailure: true },
    );
  }, 600_000);
});

describe("the same user id in two apps", () => {
  it("gets its own pipeline runs: both apps' memories are embedded", async () => {
    const asAdmin = { request: (path: string) => runtime.app.request(path, { headers: { authorization: `Bearer ${ADMIN}` } }) };
    for (const app of ["acme", "globex"]) {
      const created = await keyed(runtime.app, keys[app], "POST", "/v1/sessions", { user_id: "twin" });
      await keyed(runtime.app, keys[app], "POST", `/v1/sessions/${created.body.id}/events`, {
        events: [message("user", `The ${app} twin keeps bees.`)],
      });
    }
    await waitForSettled(asAdmin, "twin");
    for (const app of ["acme", "globex"]) {
      const listed = await keyed(runtime.app, keys[app], "GET", "/v1/memories?user_id=twin");
      expect(listed.body.memories.length).toBeGreaterThan(0);
      expect(listed.body.memories.every((memory: { embedded: boolean }) => memory.embedded)).toBe(true);
      // Each app's key sees only its own app's runs of the user, and its own counts.
      const runs = await keyed(runtime.app, keys[app], "GET", "/v1/pipeline/runs?user_id=twin");
      expect(runs.body.runs.length).toBeGreaterThan(0);
      expect(runs.body.runs.every((run: { app_id: string }) => run.app_id === app)).toBe(true);
    }
  });
});
