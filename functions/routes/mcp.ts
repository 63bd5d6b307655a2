import { z } from "zod";
import { apiRoutes, defineRoute, handlerReadJsonBody, jsonAnswer } from "../contract/define-route.js";
import { type MemoryToolNeeds, memoryTools } from "../mcp/tools/index.js";

// The SDK and the tools' server are loaded on the first MCP request, not at start-up (their imports are heavy).
const importServer = () =>
  Promise.all([import("../mcp/memory-server.js"), import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js")]);
let loaded: ReturnType<typeof importServer> | undefined;
const loadServer = () => (loaded ??= importServer());

const JsonRpcId = z.union([z.string(), z.number().int(), z.null()]);

const call = defineRoute({
  method: "post",
  path: "/",
  tags: ["operations"],
  summary: `MCP server (streamable HTTP, stateless): tools ${memoryTools.map((tool) => tool.name).join(", ")}`,
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

/**
 * The memory's MCP tools (`mcp/tools/`) over the streamable HTTP transport, stateless: every
 * request gets a fresh server bound to its caller, so API-key scoping applies exactly as on the
 * REST routes. Works the same on Node and Workers (web-standard transport). Stateless means no
 * server-initiated stream (GET) and no session to end (DELETE): no route serves them, so both are
 * the app's 405 with `Allow: POST`, as the MCP transport specification asks, and a client knows not
 * to wait for one.
 */
export const mcpRoutes = apiRoutes<MemoryToolNeeds | "log">().openapi(call, async (c) => {
  const [{ memoryServer }, { WebStandardStreamableHTTPServerTransport }] = await loadServer();
  const server = memoryServer({ deps: c.var.deps, principal: c.get("principal") });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});
