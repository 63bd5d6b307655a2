import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { keyed } from "../fixtures/keyed.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/**
 * Issue 50: a path the API serves, asked with a method it does not serve, answered 404 "no
 * route". It is 405 `method_not_allowed` with an `Allow` header naming the methods that path
 * serves (RFC 9110 §15.5.6), in the API's error shape; a path nothing serves stays 404.
 */
type Document = { paths: Record<string, Record<string, unknown>> };
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const SAMPLE: Record<string, string> = { id: "00000000-0000-4000-8000-000000000001", seq: "1", key: "tone", user_id: "ana" };

let runtime: Runtime;
let document: Document;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
  document = (await (await runtime.app.request("/openapi.json")).json()) as Document;
});
afterAll(() => runtime?.close());

const allowOf = (headers: Headers) =>
  (headers.get("allow") ?? "")
    .split(",")
    .map((method) => method.trim())
    .filter(Boolean);

describe("a method a path does not serve", () => {
  it("is 405 with Allow naming the path's methods, on every documented path", async () => {
    let checked = 0;
    for (const template of Object.keys(document.paths)) {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE[name] ?? "x");
      // Another route's pattern may match the same path (`GET /v1/memories/search` is `GET /v1/memories/{id}`): served there.
      const matching = Object.entries(document.paths).filter(([other]) => new RegExp(`^${other.replace(/\{\w+\}/g, "[^/]+")}$`).test(path));
      const servedHere = matching.flatMap(([, others]) => Object.keys(others).map((method) => method.toUpperCase()));
      for (const method of METHODS.filter((candidate) => !servedHere.includes(candidate))) {
        const answer = await keyed(runtime.app, undefined, method, path, method === "GET" || method === "DELETE" ? undefined : {});
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.body.error).toMatchObject({ code: "method_not_allowed" });
        expect(answer.body.error.message).toContain(path);
        expect(allowOf(answer.headers).sort(), `${method} ${path}`).toEqual(
          [...new Set([...servedHere, ...(servedHere.includes("GET") ? ["HEAD"] : [])])].sort(),
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("names exactly the methods of a path only one route serves, HEAD with GET", async () => {
    const context = await keyed(runtime.app, undefined, "GET", "/v1/context");
    expect(context.status).toBe(405);
    expect(allowOf(context.headers)).toEqual(["POST"]);
    const keys = await keyed(runtime.app, undefined, "PATCH", "/v1/keys");
    expect(allowOf(keys.headers).sort()).toEqual(["GET", "HEAD", "POST"]);
    const spec = await keyed(runtime.app, undefined, "POST", "/openapi.json", {});
    expect(spec.status).toBe(405);
    expect(allowOf(spec.headers).sort()).toEqual(["GET", "HEAD"]);
    // The methods it names are served.
    expect((await runtime.app.request("/openapi.json", { method: "HEAD" })).status).toBe(200);
  });

  it("leaves a path nothing serves a 404", async () => {
    for (const [method, path] of [
      ["GET", "/v1/nothing-here"],
      ["POST", "/v1/sessions/00000000-0000-4000-8000-000000000001/nowhere"],
      ["GET", "/nowhere"],
    ] as const) {
      const answer = await keyed(runtime.app, undefined, method, path, method === "GET" ? undefined : {});
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toEqual({ code: "not_found", message: `no route for ${method} ${path}` });
      expect(answer.headers.get("allow")).toBeNull();
    }
  });
});

describe("with keys required", () => {
  it("authenticates first: no key is 401 whatever the method, a valid one learns the methods", async () => {
    const admin = "admin-key-for-the-405-test-0123456789abcdef";
    const guarded = await startTestRuntime({ AUTH_REQUIRED: "true", ADMIN_API_KEY: admin, EXECUTOR_ENABLED: "false" });
    try {
      expect((await keyed(guarded.app, undefined, "DELETE", "/v1/context")).status).toBe(401);
      const answer = await keyed(guarded.app, admin, "DELETE", "/v1/context");
      expect(answer.status).toBe(405);
      expect(allowOf(answer.headers)).toEqual(["POST"]);
    } finally {
      await guarded.close();
    }
  });
});
