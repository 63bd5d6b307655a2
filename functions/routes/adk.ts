import { z } from "zod";
import { searchMemory } from "../../src/memory/recall/search.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";
import { Timestamp } from "../json/timestamp.js";

export const AdkSearchSchema = z.strictObject({
  /** The app; taken from the API key when there is one. */
  app_name: ExternalIdSchema.default("default"),
  user_id: ExternalIdSchema,
  query: z.string().min(1).max(20_000),
});

const search = defineRoute({
  method: "post",
  path: "/search_memory",
  tags: ["retrieval"],
  summary: "Google ADK MemoryService.search_memory shape",
  request: { body: jsonBody(AdkSearchSchema) },
  responses: {
    200: jsonAnswer(
      "ADK's SearchMemoryResponse",
      z.object({
        memories: z.array(
          z.object({
            content: z.object({ role: z.literal("user"), parts: z.array(z.object({ text: z.string() })) }),
            author: z.enum(["conversation", "memory"]),
            timestamp: Timestamp,
          }),
        ),
      }),
    ),
  },
});

/**
 * Google ADK's MemoryService.search_memory(app_name, user_id, query) as a thin adapter over
 * search: answers `SearchMemoryResponse` — memories as `{content: {parts: [{text}]}, author,
 * timestamp}`.
 */
export const adkRoutes = apiRoutes<"db" | "embedder" | "clock" | "ann" | "redaction" | "recall">().openapi(search, async (c) => {
  const body = c.req.valid("json");
  const result = await searchMemory(c.var.deps, {
    app_id: body.app_name,
    user_id: body.user_id,
    query: body.query,
    limit: 10,
    min_relevance: 0,
    explain: false,
  });
  return c.json(
    {
      memories: result.memories.map((memory) => ({
        content: { role: "user" as const, parts: [{ text: memory.content }] },
        author: memory.type === "episodic" ? ("conversation" as const) : ("memory" as const),
        timestamp: memory.validAt.toISOString(),
      })),
    },
    200,
  );
});
