import { Hono } from "hono";
import { ListMemoriesQuerySchema, getMemory, listMemories } from "../../src/memory/memory-read.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";
import { memoryJson } from "../serializers.js";

/** Read access to derived memories with their provenance (M3). */
export const memoryRoutes = new Hono<AppEnv>()
  .get("/", validate("query", ListMemoriesQuerySchema), async (c) => {
    const rows = await listMemories(c.var.deps.db, c.req.valid("query"));
    return c.json({ memories: rows.map((row) => memoryJson(row)) });
  })
  .get("/:id", async (c) => {
    const { row, sources } = await getMemory(c.var.deps.db, c.req.param("id"));
    return c.json(memoryJson(row, sources));
  });
