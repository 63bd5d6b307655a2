import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Context } from "hono";
import { z } from "zod";
import { assembleContext } from "../../src/context/assemble-context.js";
import { ContextRequestSchema } from "../../src/context/schemas.js";
import { notFound } from "../../src/errors.js";
import { getMemory } from "../../src/memory/read/memory-read.js";
import { SearchMemorySchema, searchMemory } from "../../src/memory/recall/search.js";
import { recallSignals } from "../../src/memory/recall/signals.js";
import { CreateMemorySchema, createMemory, deleteMemory } from "../../src/memory/write/memory-commands.js";
import { apiRoutes, defineRoute, handlerReadJsonBody, jsonAnswer } from "../contract/define-route.js";
import { parseInput } from "../contract/input.js";
import type { AppEnv } from "../deps.js";

const userId = z.string().trim().min(1).max(200).describe("The end user whose memory this is");
const appId = z.string().trim().min(1).max(200).optional().describe("The app; taken from the API key when there is one");

/**
 * The memory as MCP tools (add, search, context, forget) over the streamable HTTP transport,
 * stateless: every request gets a fresh server bound to its caller, so API-key scoping applies
 * exactly as on the REST routes. Works the same on Node and Workers (web-standard transport).
 */
function memoryServer(c: Context<AppEnv>, Server: typeof McpServer): McpServer {
  const { db, embedder, tokenizer, clock, ann, redaction, followingTurns, neighbourWeight, recall } = c.var.deps;
  const principal = c.get("principal");
  // The same rules as request bodies: storable strings, the schema, and a key's app filled in (another app is "not found").
  const scoped = <T extends z.ZodType>(schema: T, args: Record<string, unknown>): z.output<T> =>
    parseInput(schema, args, "arguments", principal);
  const text = (value: unknown) => ({
    content: [{ type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
  });

  const server = new Server({ name: "mnemo-pipeline", version: "0.1.0" });
  server.registerTool(
    "add_memory",
    {
      description: "Remember something about the user (an insight); deduplicated against what is already known.",
      inputSchema: {
        user_id: userId,
        app_id: appId,
        content: z.string().min(1).max(10_000),
        importance: z.number().min(0).max(1).optional(),
      },
    },
    async (args) => {
      const input = scoped(CreateMemorySchema, { ...args, type: "insight" });
      const operation = await createMemory({ db, embedder, clock, redaction }, input);
      return text({ operation: operation.op, memory_id: operation.memory_id, reason: operation.reason });
    },
  );
  server.registerTool(
    "search_memory",
    {
      description:
        "Find the user's memories relevant to a query, with relevance scores. Time travel: `as_of` (what was true then), " +
        '`time_window` (a phrase such as "last_month" or {from, to}); `types` narrows to episodic, semantic, insight or trait.',
      // What POST /v1/memories/search accepts, no less: agents get time travel too.
      inputSchema: { ...SearchMemorySchema.shape, user_id: userId, app_id: appId },
    },
    async (args) => {
      const result = await searchMemory(
        { db, embedder, clock, redaction, recall, ...(ann ? { ann } : {}) },
        scoped(SearchMemorySchema, args),
      );
      return text({
        no_relevant_memory: result.noRelevantMemory,
        ...(result.window ? { window: { from: result.window.from?.toISOString(), to: result.window.to?.toISOString() } } : {}),
        memories: result.memories.map((memory) => ({
          id: memory.id,
          type: memory.type,
          content: memory.content,
          relevance: memory.relevance,
          valid_at: memory.validAt.toISOString(),
          ...(result.leftOut ? { signals: recallSignals(memory, result.now) } : {}),
        })),
        ...(result.leftOut
          ? {
              left_out: result.leftOut.map(({ memory, because }) => ({
                id: memory.id,
                content: memory.content,
                relevance: memory.relevance,
                because,
              })),
            }
          : {}),
      });
    },
  );
  server.registerTool(
    "get_context",
    {
      description: "A token-budgeted context window (profile facts, relevant memories, recent history) for the next turn.",
      // What POST /v1/context accepts (budget shares, history strategy, system and tools sections).
      inputSchema: { ...ContextRequestSchema.shape, user_id: userId, app_id: appId },
    },
    async (args) => {
      const window = await assembleContext(
        { db, embedder, tokenizer, clock, redaction, followingTurns, neighbourWeight, recall, ...(ann ? { ann } : {}) },
        scoped(ContextRequestSchema, args),
      );
      // With `explain`, the receipts come beside the prompt.
      return text(window.explanation ? { prompt: window.prompt, explanation: window.explanation } : window.prompt);
    },
  );
  server.registerTool(
    "forget_memory",
    {
      description: "Forget one of the user's memories (soft delete; its history is kept).",
      inputSchema: { user_id: userId, app_id: appId, memory_id: z.uuid() },
    },
    async (args) => {
      const input = scoped(z.object({ user_id: userId, app_id: z.string().default("default"), memory_id: z.uuid() }), args);
      const { row } = await getMemory(db, input.memory_id);
      if (row.appId !== input.app_id || row.userId !== input.user_id) throw notFound("memory", input.memory_id);
      const deleted = await deleteMemory(db, input.memory_id, clock.now(), "mcp");
      return text({ forgotten: deleted.id, content: deleted.content });
    },
  );
  return server;
}

// Stateless: no server-initiated stream (GET) and no session to end (DELETE), so POST is all there is.
// The SDK is loaded on the first MCP request, not at start-up (~0.2 s of imports).
const importSdk = () =>
  Promise.all([import("@modelcontextprotocol/sdk/server/mcp.js"), import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js")]);
let sdk: ReturnType<typeof importSdk> | undefined;
const loadSdk = () => (sdk ??= importSdk());

const JsonRpcId = z.union([z.string(), z.number().int(), z.null()]);

const call = defineRoute({
  method: "post",
  path: "/",
  tags: ["operations"],
  summary: "MCP server (streamable HTTP, stateless): tools add_memory, search_memory, get_context, forget_memory",
  request: {
    body: handlerReadJsonBody(
      z.object({
        jsonrpc: z.literal("2.0"),
        id: JsonRpcId.optional(),
        method: z.string(),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  },
  responses: {
    200: jsonAnswer(
      "The JSON-RPC response",
      z.object({
        jsonrpc: z.literal("2.0"),
        id: JsonRpcId,
        result: z.unknown().optional(),
        error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
      }),
    ),
    202: { description: "A notification or response from the client: accepted, no body" },
  },
});

export const mcpRoutes = apiRoutes().openapi(call, async (c) => {
  const [{ McpServer }, { WebStandardStreamableHTTPServerTransport }] = await loadSdk();
  const server = memoryServer(c, McpServer);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});
