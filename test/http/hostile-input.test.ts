import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { call, createSession, message, startTestRuntime } from "../fixtures/runtime.js";

/**
 * A fuzzer driven by the served OpenAPI description: every route gets bodies, query parameters
 * and path parameters built from its own schemas with hostile values mixed in — lone surrogates,
 * NUL, huge strings, deep nesting, wrong types, unknown fields, path traversal, SQL and operator
 * injection — and wrong content types. No answer may be a 5xx; every 400 names its field path;
 * a non-JSON body is a 415; rejected requests leave the log as it was.
 */
type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  format?: string;
  additionalProperties?: unknown;
};
interface Operation {
  method: string;
  path: string;
  query: { name: string; schema: JsonSchema }[];
  body?: JsonSchema;
}

let runtime: Runtime;
let operations: Operation[];
const ids: { session: string; memory: string } = { session: "", memory: "" };

beforeAll(async () => {
  runtime = await startTestRuntime({ WEBHOOK_SECRET: "hostile-input-webhook-secret", EXECUTOR_ENABLED: "false", MAX_BODY_BYTES: "262144" });
  ids.session = await createSession(runtime.app, "fuzz");
  await call(runtime.app, "POST", `/v1/sessions/${ids.session}/events`, { events: [message("user", "I keep bees on my roof.")] });
  ids.memory = (
    await call(runtime.app, "POST", "/v1/memories", { user_id: "fuzz", type: "insight", content: "Keeps bees." })
  ).body.memory.id;
  const document = (await call(runtime.app, "GET", "/openapi.json")).body as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { name: string; in: string; schema: JsonSchema }[];
          requestBody?: { content: Record<string, { schema: JsonSchema }> };
        }
      >
    >;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      query: (operation.parameters ?? [])
        .filter((parameter) => parameter.in === "query")
        .map((parameter) => ({ name: parameter.name, schema: parameter.schema })),
      ...(operation.requestBody ? { body: operation.requestBody.content["application/json"]?.schema as JsonSchema } : {}),
    })),
  );
});
afterAll(() => runtime.close());

/** Cases per route: CI's default keeps the run short; FUZZ_RUNS=2000 digs deeper by hand. */
const RUNS_PER_ROUTE = Number(process.env["FUZZ_RUNS"] ?? 90);

const LONE_SURROGATE = "\ud800";
const HOSTILE_STRINGS = [
  LONE_SURROGATE,
  `a${LONE_SURROGATE}b`,
  "\udfff tail",
  "a\u0000b",
  "\u0000",
  "x".repeat(70_000),
  "../../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "' OR '1'='1' --",
  '"; DROP TABLE sessions; --',
  "$where: 1",
  '{"$gt": ""}',
  "<script>alert(1)</script>",
  "\u202e\u200b\ufeff",
  "😀".repeat(500),
  "",
  "   ",
  "NaN",
  "-1",
  "9".repeat(400),
];
const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 40 }),
);

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.constantFrom(null, true, false, 0, -1, 2 ** 53, -(2 ** 31), 1e308, -0.5, 2.5),
  fc.constantFrom([], {}, [null], { __proto__: { polluted: true } }, { constructor: { prototype: { polluted: true } } }),
  fc.constantFrom(nested(40), nested(2000)),
  fc.array(hostileString, { maxLength: 3 }),
);

/** A value shaped by the schema most of the time, hostile the rest. */
function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileValue;
  const options = schema.anyOf ?? schema.oneOf;
  if (options && options.length > 0) return fc.oneof(...options.map((option) => fromSchema(option, depth + 1)));
  const shaped = shapedBy(schema, depth);
  return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
}

function shapedBy(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== "null") : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "uuid") return fc.constantFrom(ids.session, ids.memory, "00000000-0000-4000-8000-000000000000");
      if (schema.format === "date-time") return fc.constantFrom("2026-01-02T03:04:05Z", "yesterday", "2026-13-45T99:00:00Z");
      return fc.oneof(fc.constantFrom("fuzz", "hello world", "user", "message"), hostileString);
    case "integer":
    case "number":
      return fc.oneof(
        fc.integer({ min: Math.max(-1000, schema.minimum ?? -1000), max: Math.min(100_000, schema.maximum ?? 100_000) }),
        fc.double({ noNaN: true }),
      );
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(fromSchema(schema.items, depth + 1), { maxLength: 3 });
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 });
      const record = fc.record(Object.fromEntries(properties.map(([name, property]) => [name, fromSchema(property, depth + 1)])), {
        requiredKeys: [],
      });
      // Sometimes a field the schema does not know, to check its name is reported.
      return fc
        .tuple(record, fc.option(hostileValue, { nil: undefined, freq: 4 }))
        .map(([value, extra]) => (extra === undefined ? value : { ...(value as object), colour: extra }));
    }
    default:
      return hostileValue;
  }
}

/** A path parameter: a real id, a random one, or something hostile, percent-encoded as a client would (or malformed). */
const pathValue = fc.oneof(
  fc.constantFrom(ids.session, ids.memory),
  fc.constant("fuzz"),
  hostileString.map((text) => (text.isWellFormed() ? encodeURIComponent(text) : "%ED%A0%80")),
  fc.constantFrom("%00", "%", "%zz", "..%2F..%2Fetc", "a%2Fb"),
);

const contentType = fc.constantFrom(
  "application/json",
  "application/json",
  "application/json",
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "",
  "application/json; charset=utf-8",
  "MALFORMED_JSON",
);

interface Sent {
  status: number;
  body: { error?: { code: string; details?: { issues?: { field: string }[] } } } | undefined;
  stored: number;
}

async function send(
  operation: Operation,
  parts: { path: string[]; query: [string, unknown][]; body: unknown; contentType: string },
): Promise<Sent> {
  let index = 0;
  const path = operation.path.replace(/\{\w+\}/g, () => (parts.path[index++] as string) ?? "x");
  const query = parts.query
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      return `${encodeURIComponent(name)}=${text.isWellFormed() ? encodeURIComponent(text) : "%ED%A0%80"}`;
    })
    .join("&");
  const headers: Record<string, string> = { accept: "application/json, text/event-stream" };
  let payload: string | undefined;
  if (operation.body) {
    if (parts.contentType === "MALFORMED_JSON") {
      headers["content-type"] = "application/json";
      payload = '{"events": [ {"type": "message", ';
    } else {
      if (parts.contentType) headers["content-type"] = parts.contentType;
      payload = JSON.stringify(parts.body) ?? "null";
    }
  }
  const response = await runtime.app.request(`${path}${query ? `?${query}` : ""}`, {
    method: operation.method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, body: undefined, stored: 0 };
  }
  const text = await response.text();
  let body: Sent["body"];
  try {
    body = text ? (JSON.parse(text) as Sent["body"]) : undefined;
  } catch {
    body = undefined;
  }
  // What the log gained (appends) or lost (an erasure of the user the path names) by this request.
  const stored =
    response.status === 201 && operation.path.endsWith("/events")
      ? Number((body as { stored?: number } | undefined)?.stored ?? 0)
      : response.status === 200 && operation.method === "DELETE" && operation.path === "/v1/users/{user_id}"
        ? -Number((body as { erased?: { events?: number } } | undefined)?.erased?.events ?? 0)
        : 0;
  return { status: response.status, body, stored };
}

const logSize = async () =>
  Number((await queryRows<{ n: number }>(runtime.database.db, sql`SELECT count(*)::int AS n FROM session_events`))[0]?.n);

describe("hostile input on every route of /openapi.json", () => {
  it("never answers 5xx, names the field of every 400, answers 415 to non-JSON bodies, and leaves the log alone", async () => {
    expect(operations.length).toBeGreaterThan(30);
    const before = await logSize();
    let stored = 0;
    let requests = 0;
    const statuses = new Map<number, number>();
    for (const operation of operations) {
      const pathCount = (operation.path.match(/\{\w+\}/g) ?? []).length;
      const request = fc.record({
        path: fc.array(pathValue, { minLength: pathCount, maxLength: pathCount }),
        query: fc.tuple(
          ...operation.query.map((parameter) =>
            fc.tuple(fc.constant(parameter.name), fc.option(fromSchema(parameter.schema), { nil: undefined, freq: 3 })),
          ),
          fc.tuple(fc.constant("surprise"), fc.option(hostileValue, { nil: undefined, freq: 1 })),
        ),
        body: operation.body ? fromSchema(operation.body) : fc.constant(undefined),
        contentType,
      });
      await fc.assert(
        fc.asyncProperty(request, async (parts) => {
          const sent = await send(operation, parts as { path: string[]; query: [string, unknown][]; body: unknown; contentType: string });
          requests++;
          statuses.set(sent.status, (statuses.get(sent.status) ?? 0) + 1);
          stored += sent.stored;
          const where = `${operation.method} ${operation.path} ${JSON.stringify(parts).slice(0, 400)} → ${sent.status} ${String(JSON.stringify(sent.body)).slice(0, 300)}`;
          expect(sent.status, where).toBeLessThan(500);
          // MCP speaks JSON-RPC: its refusals are JSON-RPC error objects, as the protocol asks.
          if (sent.status === 400 && operation.path === "/v1/mcp")
            expect((sent.body as { jsonrpc?: string } | undefined)?.jsonrpc, where).toBe("2.0");
          else if (sent.status === 400) {
            const issues = sent.body?.error?.details?.issues ?? [];
            expect(issues.length, where).toBeGreaterThan(0);
            for (const issue of issues) expect(issue.field, where).toMatch(/^(body|query|path|header)(\.|$)/);
          }
          const jsonBody = ["application/json", "application/json; charset=utf-8", "MALFORMED_JSON"].includes(parts.contentType);
          const urlRefused =
            (sent.status === 400 && (sent.body?.error?.details?.issues ?? []).some((issue) => /^(path|query)/.test(issue.field))) ||
            // An empty or slash-bearing path segment matches no route at all.
            (sent.status === 404 && (sent.body?.error as { message?: string } | undefined)?.message?.startsWith("no route") === true);
          if (operation.body && !jsonBody && !urlRefused && !["/v1/mcp", "/v1/webhooks/consolidate"].includes(operation.path))
            expect(sent.status, where).toBe(415);
        }),
        // Our own report: the default one stringifies the counterexample, and a 2,000-deep value
        // overflows its stack and hides the failure; the assertion's message already says what was sent.
        {
          numRuns: RUNS_PER_ROUTE,
          endOnFailure: true,
          reporter: (run) => {
            if (run.failed) throw run.errorInstance instanceof Error ? run.errorInstance : new Error(String(run.errorInstance));
          },
        },
      );
    }
    // The log grew by exactly what the accepted appends stored: a refused request wrote nothing.
    expect(await logSize()).toBe(before + stored);
    expect(requests).toBeGreaterThan(2000);
    // The fuzzer reached past validation too, not only into 400s.
    expect([...statuses.keys()].filter((status) => status < 300).length).toBeGreaterThan(0);
  });

  it("reports an unknown field by its own path, malformed JSON and a text/plain body plainly", async () => {
    const unknown = await call(runtime.app, "POST", "/v1/sessions", { user_id: "fuzz", colour: "red" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues).toEqual([{ field: "body.colour", message: "unknown field" }]);
    const malformed = await runtime.app.request("/v1/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.details.issues[0].field).toBe("body");
    const plain = await runtime.app.request("/v1/sessions", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ user_id: "fuzz" }),
    });
    expect(plain.status).toBe(415);
    expect((await plain.json()).error.details.issues[0].field).toBe("header.content-type");
    const surrogate = await call(runtime.app, "POST", `/v1/sessions/${ids.session}/events`, {
      events: [message("user", `broken ${LONE_SURROGATE} text`)],
    });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error.details.issues[0].field).toBe("body.events.0.content");
    const nul = await runtime.app.request("/v1/instructions/a%00b");
    expect(nul.status).toBe(400);
    expect((await nul.json()).error.details.issues[0].field).toBe("path.3");
  });

  it("names a number past a Postgres integer, and stores one past a real's range as the column rounds it (the fuzzer's finds)", async () => {
    for (const [path, field] of [
      ["/v1/instructions/tone?version=476801991893154", "query.version"],
      [`/v1/sessions/${ids.session}/events?after_seq=476801991893154`, "query.after_seq"],
    ] as const) {
      const { status, body } = await call(runtime.app, "GET", path);
      expect(status, path).toBe(400);
      expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
    }
    const tiny = await call(runtime.app, "POST", "/v1/memories", { user_id: "fuzz", type: "insight", content: "#m", importance: 3e-323 });
    expect(tiny.status).toBe(201);
    const decay = await call(runtime.app, "POST", "/v1/decay/run", { user_id: "fuzz", purge_after_days: 1.105465251950983e-193 });
    expect(decay.status).toBe(200);
  });
});
