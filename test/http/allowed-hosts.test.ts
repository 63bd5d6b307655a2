import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/** DNS rebinding: a page that points its own name at 127.0.0.1 sends that name as Host (and as Origin). */
const MCP_LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function expectRefused(response: Response, status: number, code: string, field: string): Promise<void> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string; details: { issues: { field: string }[] } } };
  expect(body.error.code).toBe(code);
  expect(body.error.details.issues[0]?.field).toBe(field);
}

describe("the Host allow-list on a keyless loopback server (the default)", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
  });
  afterAll(() => runtime.close());

  it("answers the loopback names, with or without a port", async () => {
    for (const host of ["localhost", "localhost:8787", "127.0.0.1:8787", "[::1]:8787", "LOCALHOST."]) {
      const response = await runtime.app.request("/v1/sessions?user_id=ana", { headers: { host } });
      expect(response.status, host).toBe(200);
    }
  });

  it("refuses a rebinding name on every kind of route with 421 in the error shape", async () => {
    for (const [method, path] of [
      ["GET", "/v1/sessions?user_id=ana"],
      ["DELETE", "/v1/users/ana"],
      ["GET", "/healthz"],
      ["GET", "/openapi.json"],
    ] as const) {
      const response = await runtime.app.request(path, { method, headers: { host: "attacker.example:8787" } });
      await expectRefused(response, 421, "misdirected", "header.host");
    }
    const mcp = await runtime.app.request("/v1/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, host: "attacker.example" },
      body: MCP_LIST,
    });
    await expectRefused(mcp, 421, "misdirected", "header.host");
  });

  it("refuses MCP from a foreign Origin even when the Host is loopback (403), and serves a local one", async () => {
    const foreign = await runtime.app.request("/v1/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, host: "127.0.0.1:8787", origin: "http://attacker.example" },
      body: MCP_LIST,
    });
    await expectRefused(foreign, 403, "forbidden", "header.origin");
    const local = await runtime.app.request("/v1/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, host: "127.0.0.1:8787", origin: "http://localhost:5173" },
      body: MCP_LIST,
    });
    expect(local.status).toBe(200);
  });
});

describe("ALLOWED_HOSTS for a deployment", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false", ALLOWED_HOSTS: "memory.example.com, ::1" });
  });
  afterAll(() => runtime.close());

  it("answers only the configured names", async () => {
    expect((await runtime.app.request("/livez", { headers: { host: "memory.example.com" } })).status).toBe(200);
    expect((await runtime.app.request("/livez", { headers: { host: "[::1]:8787" } })).status).toBe(200);
    await expectRefused(await runtime.app.request("/livez", { headers: { host: "localhost" } }), 421, "misdirected", "header.host");
  });
});

describe("ALLOWED_HOSTS=*", () => {
  it("answers any host", async () => {
    const runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false", ALLOWED_HOSTS: "*" });
    try {
      expect((await runtime.app.request("/livez", { headers: { host: "anything.example" } })).status).toBe(200);
    } finally {
      await runtime.close();
    }
  });
});
