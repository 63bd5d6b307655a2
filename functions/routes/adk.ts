import { Hono } from "hono";
import { z } from "zod";
import { searchMemory } from "../../src/memory/recall/search.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

export const AdkSearchSchema = z.strictObject({
  app_name: z.string().trim().min(1).max(200),
  user_id: z.string().trim().min(1).max(200),
  query: z.string().min(1).max(20_000),
});

/**
 * Google ADK's MemoryService.search_memory(app_name, user_id, query) as a thin adapter over
 * search (S1): answers `SearchMemoryResponse` — memories as `{content: {parts: [{text}]}, author,
 * timestamp}`.
 */
export const adkRoutes = new Hono<AppEnv>().post("/search_memory", validate("json", AdkSearchSchema), async (c) => {
  const body = c.req.valid("json");
  const result = await searchMemory(c.var.deps, {
    app_id: body.app_name,
    user_id: body.user_id,
    query: body.query,
    limit: 10,
    min_relevance: 0,
    explain: false,
  });
  return c.json({
    memories: result.memories.map((memory) => ({
      content: { role: "user", parts: [{ text: memory.content }] },
      author: memory.type === "episodic" ? "conversation" : "memory",
      timestamp: memory.validAt.toISOString(),
    })),
  });
});
