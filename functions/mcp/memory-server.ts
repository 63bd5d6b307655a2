import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { documentedSchema } from "../contract/define-route.js";
import { parseInput } from "../contract/input.js";
import { errorAnswer } from "../middleware/error-handler.js";
import type { McpTool, ToolCaller } from "./tool.js";
import { type MemoryToolNeeds, memoryTools } from "./tools/index.js";

const SERVER_INFO = { name: "mnemo-pipeline", version: "0.1.0" };

/** Each tool as `tools/list` describes it: the JSON Schema of the REST request it takes (computed once per process). */
const listed = new WeakMap<readonly object[], Tool[]>();
function describeTools(tools: readonly Pick<McpTool, "name" | "title" | "description" | "input" | "annotations">[]): Tool[] {
  let described = listed.get(tools);
  if (!described) {
    described = tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: documentedSchema(tool.input, "input") as Tool["inputSchema"],
      annotations: tool.annotations,
    }));
    listed.set(tools, described);
  }
  return described;
}

const text = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
});

/**
 * An MCP server of the memory's tools for one caller. It is the SDK's low-level `Server` on
 * purpose: `McpServer` parses each call's arguments with the tool's schema itself, and a second
 * parse would be needed for what only the raw arguments tell (whether the caller named an app,
 * strings Postgres cannot store). Here each call is parsed once, by `parseInput`, exactly as the
 * REST route of the same schema parses its body; a failure is the API's error body as the tool's
 * error result.
 *
 * @example
 * const server = memoryServer({ deps: c.var.deps, principal: c.get("principal") });
 * await server.connect(transport);
 */
export function memoryServer(
  caller: ToolCaller<MemoryToolNeeds | "log">,
  tools: readonly McpTool<z.ZodType, MemoryToolNeeds>[] = memoryTools,
): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: describeTools(tools) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}`);
    try {
      const input = parseInput(tool.input, request.params.arguments ?? {}, "arguments", caller.principal);
      return text(await tool.run(input, caller));
    } catch (error) {
      const { retryAfterSeconds: _, ...answer } = errorAnswer(error, (message, fields) =>
        caller.deps.log(message, { tool: tool.name, ...fields }),
      );
      return { ...text({ error: answer }), isError: true };
    }
  });
  return server;
}
