import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";

/** `mnemo mcp` as a desktop client starts it: a child process spoken to over its stdin and stdout. */
let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase({ persistent: true });
});
afterAll(() => database.drop());

const STARTUP_TIMEOUT_MS = 240_000;
const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0] as { text: string }).text;

describe("mnemo mcp (stdio)", () => {
  it(
    "lists the tools and runs them for a client speaking MCP over stdio",
    async () => {
      const stderr: string[] = [];
      const transport = new StdioClientTransport({
        command: "node",
        args: ["bin/mnemo.mjs", "mcp"],
        env: { ...(process.env as Record<string, string>), ...database.env, LOG_LEVEL: "error", MNEMO_URL: "" },
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
      const client = new Client({ name: "desktop-client", version: "1.0.0" });
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }, undefined, { timeout: STARTUP_TIMEOUT_MS });
      try {
        // Start-up migrates a fresh embedded database and loads the embedder: slow on a busy machine.
        await client.connect(transport, { timeout: STARTUP_TIMEOUT_MS });
        const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
        expect(tools).toEqual(["add_memory", "find_entities", "forget_memory", "get_context", "read_entity", "search_memory"]);
        const added = JSON.parse(textOf(await call("add_memory", { user_id: "ana", content: "Ana is allergic to peanuts." })));
        expect(added.operation).toBe("ADD");
        const found = JSON.parse(textOf(await call("search_memory", { user_id: "ana", query: "allergies" })));
        expect(found.memories[0]).toMatchObject({ id: added.memory_id, content: "Ana is allergic to peanuts." });
        // Bad arguments are the API's error body, as the tool's error result, not a dead server.
        const refused = await call("search_memory", { user_id: "ana", query: "x", time_window: "last_month" });
        expect(refused.isError).toBe(true);
        expect(JSON.parse(textOf(refused)).error).toMatchObject({ code: "invalid_request" });
        expect(textOf(refused)).toContain("time_window");
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nstderr of mnemo mcp:\n${stderr.join("")}`);
      } finally {
        await client.close();
      }
    },
    2 * STARTUP_TIMEOUT_MS,
  );
});
