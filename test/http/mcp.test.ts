import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createApiKey } from "../../src/auth/api-keys.js";
import { startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
const keys: Record<string, string> = {};
beforeAll(async () => {
  runtime = await startTestRuntime({ AUTH_REQUIRED: "true", EXECUTOR_ENABLED: "false" });
  for (const app of ["mcp-a", "mcp-b"]) keys[app] = (await createApiKey(runtime.database.db, { appId: app, name: "mcp" })).key;
});
afterAll(() => runtime.close());

async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://memory.local/v1/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (input, init) => Promise.resolve(runtime.app.request(String(input), init)),
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0] as { text: string }).text;

describe("MCP server", () => {
  it("answers a real MCP client: list tools, add, search, context, forget", async () => {
    const client = await connect(keys["mcp-a"] as string);
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(tools).toEqual(["add_memory", "find_entities", "forget_memory", "get_context", "read_entity", "search_memory"]);

    const added = JSON.parse(
      textOf(await client.callTool({ name: "add_memory", arguments: { user_id: "max", content: "Max is allergic to peanuts." } })),
    );
    expect(added.operation).toBe("ADD");
    const found = JSON.parse(textOf(await client.callTool({ name: "search_memory", arguments: { user_id: "max", query: "allergies" } })));
    expect(found.memories[0]).toMatchObject({ id: added.memory_id, content: "Max is allergic to peanuts." });
    const context = textOf(
      await client.callTool({ name: "get_context", arguments: { user_id: "max", query: "What can Max not eat?", max_tokens: 300 } }),
    );
    expect(context).toContain("allergic to peanuts");

    // Another app's key cannot reach it, and says only "not found".
    const other = await connect(keys["mcp-b"] as string);
    const stolen = await other.callTool({ name: "forget_memory", arguments: { user_id: "max", memory_id: added.memory_id } });
    expect(stolen.isError).toBe(true);
    expect(textOf(stolen)).toMatch(/not found/);
    const elsewhere = JSON.parse(textOf(await other.callTool({ name: "search_memory", arguments: { user_id: "max", query: "peanuts" } })));
    expect(elsewhere.memories).toEqual([]);
    const namedApp = await other.callTool({ name: "search_memory", arguments: { user_id: "max", app_id: "mcp-a", query: "peanuts" } });
    expect(namedApp.isError).toBe(true);

    const forgotten = JSON.parse(
      textOf(await client.callTool({ name: "forget_memory", arguments: { user_id: "max", memory_id: added.memory_id } })),
    );
    expect(forgotten.forgotten).toBe(added.memory_id);
    const after = JSON.parse(textOf(await client.callTool({ name: "search_memory", arguments: { user_id: "max", query: "peanuts" } })));
    expect(after.memories).toEqual([]);
    await client.close();
    await other.close();
  });

  it("gives agents what the REST routes accept: as_of and time windows on search, the whole context request", async () => {
    const client = await connect(keys["mcp-a"] as string);
    const fact = (value: string, validAt: string) =>
      runtime.app.request("/v1/memories", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${keys["mcp-a"]}` },
        body: JSON.stringify({
          user_id: "ines",
          type: "semantic",
          subtype: "profile",
          key: "location",
          value,
          content: `User lives in ${value}.`,
          valid_at: validAt,
        }),
      });
    expect((await fact("Lisbon", "2025-03-01T00:00:00Z")).status).toBe(201);
    expect((await fact("Porto", "2025-09-01T00:00:00Z")).status).toBe(201);
    const search = async (extra: Record<string, unknown>) =>
      JSON.parse(
        textOf(await client.callTool({ name: "search_memory", arguments: { user_id: "ines", query: "where does she live", ...extra } })),
      ) as {
        memories: { content: string; valid_at: string }[];
        window?: { from?: string; to?: string };
      };
    expect((await search({})).memories.map((memory) => memory.content)).toEqual(["User lives in Porto."]);
    // What was true last spring.
    expect((await search({ as_of: "2025-05-01T00:00:00Z" })).memories.map((memory) => memory.content)).toEqual(["User lives in Lisbon."]);
    const windowed = await search({ time_window: { from: "2025-08-01T00:00:00Z", to: "2025-10-01T00:00:00Z" }, types: ["semantic"] });
    expect(windowed.memories.map((memory) => memory.content)).toEqual(["User lives in Porto."]);
    expect(windowed.window?.from).toBe("2025-08-01T00:00:00.000Z");
    const refused = await client.callTool({
      name: "search_memory",
      arguments: { user_id: "ines", query: "x", time_window: "next_century" },
    });
    expect(refused.isError).toBe(true);
    const context = textOf(
      await client.callTool({
        name: "get_context",
        arguments: { user_id: "ines", query: "Plan a weekend", max_tokens: 400, system: "You are a travel agent." },
      }),
    );
    expect(context).toContain("You are a travel agent.");
    expect(context).toContain("Porto");
    await client.close();
  });

  it("answers GET and DELETE with 405 and Allow: POST (stateless: no stream, no session), in the error shape", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await runtime.app.request("/v1/mcp", {
        method,
        headers: { authorization: `Bearer ${keys["mcp-a"]}`, accept: "text/event-stream" },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect((await response.json()).error).toMatchObject({ code: "method_not_allowed" });
    }
  });

  it("refuses callers without a key", async () => {
    const response = await runtime.app.request("/v1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
  });
});
