import { readFile } from "node:fs/promises";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { renderApiReference } from "../../scripts/render-api-reference.js";
import { signWebhook } from "../../src/auth/webhook-signature.js";
import { message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

type JsonSchema = Record<string, unknown>;
type Operation = { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

const SECRET = "contract-webhook-secret";
let runtime: Runtime;
let document: Document;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const validators = new Map<string, ValidateFunction>();
/** Documented operations ("GET /v1/sessions/{id}") answered with a 2xx whose body matched its schema. */
const answered = new Set<string>();

beforeAll(async () => {
  runtime = await startTestRuntime({ WEBHOOK_SECRET: SECRET });
  document = (await (await runtime.app.request("/openapi.json")).json()) as Document;
});
afterAll(() => runtime.close());

/** The documented operation a concrete request addresses. */
function operationOf(method: string, url: string): { key: string; operation: Operation } {
  const path = new URL(url, "http://memory.local").pathname;
  for (const [template, methods] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}/?$`);
    const operation = methods[method.toLowerCase()];
    if (pattern.test(path) && operation) return { key: `${method.toUpperCase()} ${template}`, operation };
  }
  throw new Error(`${method} ${path} is not documented`);
}

function validatorFor(key: string, status: number, mediaType: string, schema: JsonSchema): ValidateFunction {
  const id = `${key} ${status} ${mediaType}`;
  let validate = validators.get(id);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(id, validate);
  }
  return validate;
}

/**
 * Sends a request and checks its live answer against the document: the status is documented, and
 * the body (each line of a JSON-lines answer) validates against that status's schema.
 */
async function send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const { key, operation } = operationOf(method, url);
  const response = await runtime.app.request(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  const documented = operation.responses[String(response.status)];
  expect(documented, `${key} answered ${response.status}, which it does not document: ${text.slice(0, 300)}`).toBeDefined();
  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
  const schema = documented?.content?.[mediaType]?.schema;
  if (documented?.content) expect(schema, `${key} ${response.status} answered ${mediaType}, not a documented media type`).toBeDefined();
  const values =
    mediaType === "application/x-ndjson"
      ? text
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : text
        ? [JSON.parse(text)]
        : [];
  if (schema) {
    const validate = validatorFor(key, response.status, mediaType, schema);
    for (const value of values)
      expect(
        validate(value),
        `${key} ${response.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 400)}`,
      ).toBe(true);
  }
  if (response.status < 300) answered.add(key);
  return values[0];
}

describe("the API contract", () => {
  it("answers every documented route with a body its documented schema accepts, timestamps in RFC 3339 UTC", async () => {
    const user = "ana";
    await send("GET", "/healthz");
    await send("GET", "/livez");
    await send("GET", "/readyz");
    const session = await send("POST", "/v1/sessions", { user_id: user, metadata: { channel: "chat" } });
    await send("POST", `/v1/sessions/${session.id}/events`, {
      events: [
        message("user", "I moved to Porto last spring and I work as a nurse."),
        message("assistant", "Porto is lovely."),
        message("user", "My daughter Maya starts school in September."),
      ],
    });
    await send("GET", `/v1/sessions?user_id=${user}`);
    await send("GET", `/v1/sessions/${session.id}`);
    await send("PATCH", `/v1/sessions/${session.id}/state`, { user: { theme: "dark" } });
    await send("GET", `/v1/sessions/${session.id}/events?limit=2`);
    await send("POST", `/v1/sessions/${session.id}/end`);
    await waitForSettled(runtime.app, user);

    await send("POST", "/v1/context", { user_id: user, query: "Where does the user live?", max_tokens: 400, explain: true });
    const found = await send("POST", "/v1/memories/search", { user_id: user, query: "Porto", explain: true });
    await send("POST", "/v1/memories/search", { user_id: user, query: "Maya", time_window: "recently" });
    const index = await send("GET", `/v1/memories/index?user_id=${user}`);
    await send("POST", "/v1/memories/expand", { user_id: user, ids: index.index.slice(0, 2).map((entry: { id: string }) => entry.id) });
    await send("POST", "/v1/adk/search_memory", { app_name: "default", user_id: user, query: "Porto" });
    const created = await send("POST", "/v1/memories", { user_id: user, type: "insight", content: "Prefers short answers." });
    await send("POST", "/v1/memories", { user_id: user, type: "insight", content: "Prefers short answers." });
    await send("GET", `/v1/memories?user_id=${user}`);
    await send("GET", `/v1/memories?user_id=${user}&include_expired=true`);
    await send("GET", `/v1/memories/health?user_id=${user}`);
    await send("GET", `/v1/memories/retention?user_id=${user}`);
    await send("PATCH", `/v1/memories/${created.memory.id}`, { pinned: true });
    await send("GET", `/v1/memories/${found.memories[0].id}`);
    await send("GET", `/v1/memories/${created.memory.id}/history`);
    const entities = await send("GET", `/v1/entities?user_id=${user}&q=maya`);
    await send("GET", `/v1/entities/${entities.entities[0].id}?as_of=2030-01-01T00:00:00Z`);
    await send("DELETE", `/v1/memories/${created.memory.id}`);

    await send("PUT", "/v1/instructions/tone", { content: "Be brief." });
    await send("PUT", "/v1/instructions/tone", { content: "Be brief and kind." });
    await send("GET", "/v1/instructions/tone");
    await send("GET", "/v1/instructions/tone/versions");

    await send("GET", `/v1/pipeline/status?user_id=${user}`);
    await send("GET", `/v1/pipeline/runs?user_id=${user}`);
    await send("GET", `/v1/pipeline/jobs?user_id=${user}`);
    await send("POST", "/v1/pipeline/retry", { user_id: user });
    await send("GET", `/v1/usage?user_id=${user}`);
    await send("POST", "/v1/decay/run", { user_id: user });
    await send("POST", `/v1/sessions/${session.id}/events/2/redact`, {});
    await send("GET", `/v1/users/${user}/export`);
    await send("POST", `/v1/users/${user}/rebuild`, { dry_run: true });
    await send("GET", `/v1/users/${user}/facts/audit`);
    await send("POST", `/v1/users/${user}/facts/audit`, {});
    const key = await send("POST", "/v1/keys", { app_id: "contract-app", name: "contract" });
    await send("GET", "/v1/keys?app_id=contract-app");
    await send("DELETE", `/v1/keys/${key.id}`);

    const hook = JSON.stringify({ user_id: user });
    await send("POST", "/v1/webhooks/consolidate", hook, {
      "webhook-signature": await signWebhook(SECRET, Math.floor(Date.now() / 1000), hook),
    });
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "contract", version: "1" } },
    };
    await send("POST", "/v1/mcp", initialize, { accept: "application/json, text/event-stream" });

    const live = await runtime.app.request(`/v1/live?user_id=${user}`, { signal: AbortSignal.timeout(2_000) });
    expect(live.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(operationOf("GET", "/v1/live").operation.responses["200"]?.content?.["text/event-stream"]).toBeDefined();
    await live.body?.cancel();
    answered.add("GET /v1/live");

    await send("POST", `/v1/users/${user}/rebuild`, {});
    await waitForSettled(runtime.app, user);
    await send("DELETE", `/v1/users/${user}`);

    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((key) => !answered.has(key))).toEqual([]);
  }, 300_000);

  it("types every success answer: no bare object schema", () => {
    const untyped = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) =>
        Object.entries(operation.responses)
          .filter(([status]) => status.startsWith("2"))
          .flatMap(([status, response]) =>
            Object.entries(response.content ?? {})
              .filter(([, media]) => media.schema["type"] === "object" && !media.schema["properties"])
              .map(([mediaType]) => `${method.toUpperCase()} ${path} ${status} ${mediaType}`),
          ),
      ),
    );
    expect(untyped).toEqual([]);
  });

  it("is what docs/api.md says (npm run docs:api writes it)", async () => {
    const written = await readFile(new URL("../../docs/api.md", import.meta.url), "utf8");
    expect(written).toBe(renderApiReference(document as unknown as Parameters<typeof renderApiReference>[0]));
  });
});
