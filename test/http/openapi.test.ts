import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

/** Routes that are not part of the public API description. */
const UNDOCUMENTED = new Set(["GET /openapi.json", "GET /docs", "GET /dashboard", "GET /dashboard.js"]);

describe("OpenAPI description", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const { status, body } = await call(runtime.app, "GET", "/openapi.json");
    expect(status).toBe(200);
    const result = await validate(structuredClone(body));
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("documents exactly the routes the app serves", async () => {
    const { body } = await call(runtime.app, "GET", "/openapi.json");
    const documented = Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    const served = runtime.app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => `${route.method} ${route.path.replace(/\/$/, "") || "/"}`)
      .filter((route) => !UNDOCUMENTED.has(route));
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  });

  it("describes request bodies with the schemas the routes validate with", async () => {
    const { body } = await call(runtime.app, "GET", "/openapi.json");
    const append = body.paths["/v1/sessions/{id}/events"].post.requestBody.content["application/json"].schema;
    expect(append.required).toEqual(["events"]);
    expect(append.properties.events.items.properties.role.enum).toEqual(expect.arrayContaining(["user", "assistant"]));
    const context = body.paths["/v1/context"].post;
    expect(context.requestBody.content["application/json"].schema.required).toEqual(
      expect.arrayContaining(["user_id", "query", "max_tokens"]),
    );
    expect(body.paths["/v1/webhooks/consolidate"].post.security).toEqual([]);
  });

  it("renders a reference page", async () => {
    const response = await runtime.app.request("/docs");
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("<code>/v1/sessions/:id/events</code>");
    expect(page).toContain("Assemble a token-budgeted context window");
    expect(page).not.toContain("[object");
  });
});
