import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { sql } from "drizzle-orm";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createApiKey } from "../../src/auth/api-keys.js";
import { type NodeTelemetry, startNodeTelemetry } from "../../src/telemetry/node-sdk.js";
import { createLogger } from "../../src/util/logger.js";
import { serializeError } from "../../src/util/safe-error.js";
import { onPostgres } from "../fixtures/database.js";
import { keyed } from "../fixtures/keyed.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * What an operator sees: a request id on every line, one access line per request, spans of one
 * append linked through replay and reflection, and /metrics in Prometheus' format. The SDK is
 * registered as the Node entry registers it, with spans kept in memory instead of sent by OTLP.
 */
const spans = new InMemorySpanExporter();
let telemetry: NodeTelemetry;
let runtime: Runtime;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  telemetry = startNodeTelemetry({ serviceName: "mnemo-test", spanExporter: spans });
  vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    if (typeof line === "string" && line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  runtime = await startTestRuntime(
    // Reflection starts as soon as one important thing was said: one append reaches every stage.
    { LOG_LEVEL: "info", REFLECTION_IMPORTANCE_THRESHOLD: "0.5" },
    { metrics: { text: () => telemetry.metricsText() } },
  );
});
afterAll(async () => {
  await runtime?.close();
  await telemetry.shutdown();
  vi.restoreAllMocks();
});
afterEach(() => {
  lines.length = 0;
});

describe("request ids and access lines", () => {
  it("echoes a well-formed x-request-id, makes one otherwise, and writes one access line per request carrying it", async () => {
    const list = (id: string) => runtime.app.request("/v1/sessions?user_id=ana-private-id", { headers: { "x-request-id": id } });
    const given = await list("trace-me-42");
    expect(given.status).toBe(200);
    expect(given.headers.get("x-request-id")).toBe("trace-me-42");
    const made = await list("no spaces allowed");
    const id = made.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const access = lines.filter((line) => line["message"] === "request");
    expect(access).toHaveLength(2);
    expect(access[0]).toMatchObject({ level: "info", request_id: "trace-me-42", method: "GET", route: "/v1/sessions", status: 200 });
    expect(access[1]).toMatchObject({ request_id: id });
    // The route's pattern, never the path or query: those carry user ids and search words.
    expect(JSON.stringify(access)).not.toContain("ana-private-id");
  });

  it("probes are logged at debug, below the default level", async () => {
    expect((await call(runtime.app, "GET", "/livez")).status).toBe(200);
    expect(lines.filter((line) => line["message"] === "request")).toHaveLength(0);
  });
});

describe("errors in logs", () => {
  it("keep their message, code, statement name and stack, and lose the statement's values", async () => {
    const marker = "never-log-this-value-7731";
    const error = await runtime.database.db.execute(sql`SELECT ${marker}::uuid AS id`).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    const serialized = serializeError(error);
    expect(serialized).toMatchObject({ message: "query failed", statement: "SELECT", cause: { code: "22P02", message: "data exception" } });
    expect(serialized.stack).toMatch(/^at /);
    expect(JSON.stringify(serialized)).not.toContain(marker);
    // The failure mode this replaces: an Error logged as a field came out as `{}`.
    createLogger("error").error("failed", { error });
    const logged = lines.at(-1) as { error: { cause: { code: string } } };
    expect(logged.error.cause.code).toBe("22P02");
    expect(JSON.stringify(logged)).not.toContain(marker);
  });
});

describe("a trace of one append", () => {
  it("links the request, the replay and the reflection runs, their steps, statements and provider calls", async () => {
    spans.reset();
    const sessionId = await createSession(runtime.app, "tracy");
    const appended = await keyed(runtime.app, undefined, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "Please remember that I love hiking in the Alps, it is important to me.")],
    });
    expect(appended.status).toBe(201);
    await waitForSettled(runtime.app, "tracy");
    await vi.waitFor(() => expect(runs(spans.getFinishedSpans()).some((span) => span.name.includes("deep-reflection"))).toBe(true), {
      timeout: 60_000,
    });

    const all = spans.getFinishedSpans();
    const request = all.find((span) => span.name === "POST /v1/sessions/:id/events");
    expect(request).toBeDefined();
    const trace = all.filter((span) => span.spanContext().traceId === request?.spanContext().traceId);
    const names = trace.map((span) => span.name);
    expect(names.some((name) => /^run .*fast-replay$/.test(name))).toBe(true);
    expect(names.some((name) => /^run .*deep-reflection$/.test(name))).toBe(true);
    expect(names.some((name) => /^step .*fast-replay\//.test(name))).toBe(true);
    expect(names.some((name) => name.startsWith("summarize "))).toBe(true);
    expect(names.some((name) => name.startsWith("extract "))).toBe(true);
    expect(names).toContain("SELECT append_session_events");
    // Linked: every span but the request's has its parent in the same trace.
    const ids = new Set(trace.map((span) => span.spanContext().spanId));
    for (const span of trace) if (span !== request) expect(ids.has(parentOf(span) ?? ""), span.name).toBe(true);
    const step = trace.find((span) => /^step .*fast-replay\//.test(span.name));
    expect(step?.attributes).toMatchObject({ "inngest.function.id": "fast-replay" });
    expect(step?.attributes["inngest.run.id"]).toEqual(expect.any(String));
    const summary = trace.find((span) => span.name.startsWith("summarize "));
    expect(summary?.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    // Spans name statements and models; the user's words are in none of them.
    expect(JSON.stringify(trace.map((span) => [span.name, span.attributes]))).not.toContain("hiking");
  });
});

describe("/metrics", () => {
  it("parses as Prometheus text and holds request latency by route and status, the pipeline, providers and the queue", async () => {
    const sessionId = await createSession(runtime.app, "metty");
    await keyed(runtime.app, undefined, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I like tea.")] });
    await waitForSettled(runtime.app, "metty");
    const response = await runtime.app.request("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    // The parser throws on a malformed line and reads each family's type; it drops a histogram's
    // labels, so the samples are read line by line below.
    const families = parsePrometheusTextFormat(text);
    const typeOf = (name: string) => families.find((candidate) => candidate.name === name)?.type;
    const samples = text
      .split("\n")
      .filter((line) => line && !line.startsWith("#"))
      .map((line) => {
        const [, name, labels = "", value] = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line) ?? [];
        expect(name, line).toBeDefined();
        return {
          name,
          labels: Object.fromEntries([...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, val]) => [key, val])),
          value: Number(value),
        };
      });
    const find = (name: string, labels: Record<string, string>) =>
      samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, val]) => sample.labels[key] === val));

    expect(typeOf("http_server_request_duration")).toBe("HISTOGRAM");
    const appends = find("http_server_request_duration_count", {
      http_route: "/v1/sessions/:id/events",
      http_request_method: "POST",
      http_response_status_code: "201",
    });
    expect(appends[0]?.value).toBeGreaterThanOrEqual(1);
    expect(find("http_server_request_duration_bucket", { http_route: "/v1/sessions/:id/events", le: "+Inf" })).toHaveLength(1);

    const stage = (name: string, label: string) => find(name, { stage: label })[0]?.value;
    expect(stage("mnemo_pipeline_events", "appended")).toBeGreaterThanOrEqual(1);
    expect(stage("mnemo_pipeline_events", "replay")).toBeGreaterThanOrEqual(1);
    expect(stage("mnemo_pipeline_backlog", "replay")).toBe(0);
    expect(stage("mnemo_pipeline_lag", "replay")).toBeGreaterThanOrEqual(0);
    expect(stage("mnemo_pipeline_dead_letters", "reflection")).toBe(0);
    // Transaction id age (wraparound): this database's and the oldest on its server.
    const xidAge = (database: string) => find("mnemo_database_xid_age", { database })[0]?.value ?? Number.NaN;
    expect(xidAge("oldest")).toBeGreaterThan(0);
    expect(xidAge("oldest")).toBeGreaterThanOrEqual(xidAge("current"));
    expect(
      find("mnemo_executor_queue", {})
        .map((sample) => sample.labels["state"])
        .sort(),
    ).toEqual(["due", "running", "scheduled"]);
    expect(find("mnemo_executor_runs_total", { status: "completed" }).length).toBeGreaterThan(0);
    expect(typeOf("mnemo_pipeline_step_duration")).toBe("HISTOGRAM");
    expect(find("mnemo_pipeline_step_duration_count", { outcome: "ok" }).length).toBeGreaterThan(0);
    expect(find("mnemo_provider_duration_count", { operation: "embeddings", outcome: "ok" }).length).toBeGreaterThan(0);
    expect(find("mnemo_provider_tokens_total", { stage: "replay", direction: "input" }).length).toBeGreaterThan(0);
    // The embedder's queue: nothing waits once settled; its worker threads, busy and idle.
    expect(find("mnemo_embedder_waiting", { priority: "background" })[0]?.value).toBe(0);
    expect(find("mnemo_embedder_oldest_wait", { priority: "query" })[0]?.value).toBe(0);
    const slots = find("mnemo_embedder_slots", {}).reduce((sum, sample) => sum + sample.value, 0);
    expect(slots).toBeGreaterThanOrEqual(1);
    if (onPostgres) expect(find("db_client_connection_count", { pool: "main" }).length).toBeGreaterThan(0);
  });
});

describe("/metrics behind keys", () => {
  it("needs the admin key when keys are required: no key is 401, an app's key 403 as on /v1/keys", async () => {
    const admin = "admin-key-for-the-metrics-test-0123456789";
    const guarded = await startTestRuntime(
      { AUTH_REQUIRED: "true", ADMIN_API_KEY: admin, EXECUTOR_ENABLED: "false" },
      { metrics: { text: () => telemetry.metricsText() } },
    );
    try {
      const scrape = (key?: string) => guarded.app.request("/metrics", key ? { headers: { authorization: `Bearer ${key}` } } : {});
      expect((await scrape()).status).toBe(401);
      const { key: appKey } = await createApiKey(guarded.database.db, { appId: "metrics-app", name: "not an operator" });
      // Issue 50: the app key was 401 here and 403 on /v1/keys. Authenticated, not permitted: 403 on both.
      const refused = await scrape(appKey);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("forbidden");
      expect((await keyed(guarded.app, appKey, "GET", "/v1/keys")).status).toBe(403);
      expect((await scrape(admin)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

function runs(all: ReadableSpan[]): ReadableSpan[] {
  return all.filter((span) => span.name.startsWith("run "));
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
