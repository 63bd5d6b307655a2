import { Hono } from "hono";
import { z } from "zod";
import { retentionStats } from "../../src/memory/lifecycle/decay.js";
import { memoryHealth } from "../../src/memory/read/health.js";
import { getMemory, getMemoryHistory, ListMemoriesQuerySchema, listMemories } from "../../src/memory/read/memory-read.js";
import { ExpandMemoriesSchema, expandMemories, MemoryIndexQuerySchema, memoryIndex } from "../../src/memory/recall/memory-index.js";
import { SearchMemorySchema, searchMemory } from "../../src/memory/recall/search.js";
import { CreateMemorySchema, createMemory, deleteMemory, PatchMemorySchema, setPinned } from "../../src/memory/write/memory-commands.js";
import type { AppEnv } from "../deps.js";
import { ownedByCaller } from "../middleware/ownership.js";
import { validate } from "../middleware/validate.js";
import { historyJson, leftOutJson, memoryJson, retentionClock, scoredMemoryJson } from "../serializers.js";

export const RetentionQuerySchema = z.strictObject({
  user_id: z.string().trim().min(1).max(200),
  app_id: z.string().trim().min(1).max(200).default("default"),
});

/** Memories with their provenance (M3) and history (M4), structured ingestion and soft delete. */
export const memoryRoutes = new Hono<AppEnv>()
  .use("/:id", ownedByCaller("memories"))
  .use("/:id/*", ownedByCaller("memories"))
  .post("/search", validate("json", SearchMemorySchema), async (c) => {
    const { accessRecorder, background } = c.var.deps;
    const result = await searchMemory(c.var.deps, c.req.valid("json"));
    const ids = result.memories.map((memory) => memory.id);
    if (ids.length > 0) background.run(c, "record access", () => accessRecorder.record(ids));
    return c.json({
      memories: result.memories.map((memory) => scoredMemoryJson(memory, result.leftOut ? result.now : undefined)),
      no_relevant_memory: result.noRelevantMemory,
      time_window: result.window ? { from: result.window.from?.toISOString() ?? null, to: result.window.to?.toISOString() ?? null } : null,
      warnings: result.warnings,
      ...(result.leftOut ? { explanation: { left_out: result.leftOut.map((entry) => leftOutJson(entry, result.now)) } } : {}),
    });
  })
  .get("/index", validate("query", MemoryIndexQuerySchema), async (c) => {
    const index = await memoryIndex(c.var.deps.db, c.req.valid("query"), c.var.deps.clock.now());
    return c.json({ index: index.entries, text: index.text });
  })
  .post("/expand", validate("json", ExpandMemoriesSchema), async (c) => {
    const { memories, missing } = await expandMemories(c.var.deps.db, c.req.valid("json"));
    // One reading time for the whole answer.
    const at = retentionClock(c.var.deps);
    return c.json({ memories: memories.map(({ row, sources }) => memoryJson(row, at, sources)), missing });
  })
  .post("/", validate("json", CreateMemorySchema), async (c) => {
    const { db, embedder } = c.var.deps;
    const operation = await createMemory({ db, embedder, clock: c.var.deps.clock, redaction: c.var.deps.redaction }, c.req.valid("json"));
    const { row, sources } = await getMemory(db, operation.memory_id);
    return c.json(
      { operation: operation.op, reason: operation.reason, memory: memoryJson(row, retentionClock(c.var.deps), sources) },
      operation.op === "NOOP" ? 200 : 201,
    );
  })
  .get("/", validate("query", ListMemoriesQuerySchema), async (c) => {
    const at = retentionClock(c.var.deps);
    const rows = await listMemories(c.var.deps.db, c.req.valid("query"), at.now);
    return c.json({ memories: rows.map((row) => memoryJson(row, at)) });
  })
  .get("/health", validate("query", RetentionQuerySchema), async (c) => {
    const query = c.req.valid("query");
    return c.json({
      user_id: query.user_id,
      app_id: query.app_id,
      ...(await memoryHealth(c.var.deps.db, { appId: query.app_id, userId: query.user_id }, retentionClock(c.var.deps))),
      decay: c.var.deps.decay,
    });
  })
  .get("/retention", validate("query", RetentionQuerySchema), async (c) => {
    const query = c.req.valid("query");
    return c.json({
      user_id: query.user_id,
      app_id: query.app_id,
      ...(await retentionStats(c.var.deps.db, { appId: query.app_id, userId: query.user_id }, retentionClock(c.var.deps))),
    });
  })
  .patch("/:id", validate("json", PatchMemorySchema), async (c) => {
    const row = await setPinned(c.var.deps.db, c.req.param("id"), c.req.valid("json").pinned, c.var.deps.clock.now());
    return c.json(memoryJson(row, retentionClock(c.var.deps)));
  })
  .get("/:id", async (c) => {
    const { row, sources } = await getMemory(c.var.deps.db, c.req.param("id"));
    return c.json(memoryJson(row, retentionClock(c.var.deps), sources));
  })
  .get("/:id/history", async (c) => {
    const { memory, entries } = await getMemoryHistory(c.var.deps.db, c.req.param("id"));
    return c.json({ memory_id: memory.id, history: entries.map(historyJson) });
  })
  .delete("/:id", async (c) => {
    const row = await deleteMemory(c.var.deps.db, c.req.param("id"), c.var.deps.clock.now());
    return c.json(memoryJson(row, retentionClock(c.var.deps)));
  });
