import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { finished } from "../fixtures/finished.js";

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

  it(
    "answers every request written before stdin closed with the service's answers, then exits 0 (issue 50: they were 'This operation was aborted')",
    async () => {
      const child = spawn("node", ["bin/mnemo.mjs", "mcp"], {
        env: { ...process.env, ...database.env, LOG_LEVEL: "error", MNEMO_URL: "" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      // The service starts in the process (a fresh embedded database, the embedder): slow on a busy machine.
      const ended = finished(child, STARTUP_TIMEOUT_MS);
      // A client that writes its requests and closes its end at once (a script piping a file in).
      const messages = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "add_memory", arguments: { user_id: "bo", content: "Bo plays the cello." } },
        },
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
      ];
      child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
      const { code, stdout, stderr } = await ended;
      expect(code, stderr).toBe(0);
      expect(stderr).not.toContain("aborted");
      const answers = new Map(
        stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { id: number; result?: Record<string, unknown>; error?: unknown })
          .map((answer) => [answer.id, answer]),
      );
      expect([...answers.keys()].sort()).toEqual([1, 2, 3]);
      for (const answer of answers.values()) expect(answer.error).toBeUndefined();
      expect(answers.get(1)?.result?.["serverInfo"]).toMatchObject({ name: "mnemo-pipeline" });
      expect(JSON.parse(textOf(answers.get(2)?.result))).toMatchObject({ operation: "ADD" });
      expect(answers.get(3)?.result?.["tools"]).toHaveLength(6);
    },
    2 * STARTUP_TIMEOUT_MS,
  );
});
