import { z } from "zod";
import type { Database } from "../../src/db/database.js";
import { MEMORY_TYPES } from "../../src/db/schema/memories.js";
import { retentionStats } from "../../src/memory/lifecycle/decay.js";
import { memoryHealth } from "../../src/memory/read/health.js";
import {
  getMemory,
  getMemoryHistory,
  ListMemoriesQuerySchema,
  laterMentionsOfFacts,
  listMemories,
  type MemoryRow,
} from "../../src/memory/read/memory-read.js";
import { NO_PROVENANCE, type Provenance, provenanceOf } from "../../src/memory/read/provenance-read.js";
import type { LaterStatement } from "../../src/memory/recall/later-statements.js";
import { ExpandMemoriesSchema, expandMemories, MemoryIndexQuerySchema, memoryIndex } from "../../src/memory/recall/memory-index.js";
import { SearchMemorySchema, searchMemory } from "../../src/memory/recall/search.js";
import { CreateMemorySchema, createMemory, deleteMemory, PatchMemorySchema, setPinned } from "../../src/memory/write/memory-commands.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";
import type { AppDeps } from "../deps.js";
import { HistoryEntrySchema, historyJson } from "../json/history.js";
import { type MemoryReading, MemorySchema, memoryJson, retentionClock } from "../json/memory.js";
import { LeftOutSchema, leftOutJson, ScoredMemorySchema, scoredMemoryJson } from "../json/search.js";
import { Timestamp } from "../json/timestamp.js";
import { ownedByCaller } from "../middleware/ownership.js";

export const RetentionQuerySchema = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
});

const MemoryPath = z.object({ id: z.string().describe("The memory's id") });
const retrieval = ["retrieval"];
const tags = ["memories"];

const search = defineRoute({
  method: "post",
  path: "/search",
  tags: retrieval,
  summary: "Hybrid search with relevance gating and time travel (`as_of`, `time_window`)",
  request: { body: jsonBody(SearchMemorySchema) },
  responses: {
    200: jsonAnswer(
      "The hits, best first; with `explain` their receipts and the candidates left out",
      z.object({
        memories: z.array(ScoredMemorySchema),
        /** True when nothing cleared `min_relevance`: better no memory than a wrong one. */
        no_relevant_memory: z.boolean(),
        /** The window a `time_window` resolved to. */
        time_window: z.object({ from: Timestamp.nullable(), to: Timestamp.nullable() }).nullable(),
        warnings: z.array(z.string()),
        explanation: z.object({ left_out: z.array(LeftOutSchema) }).optional(),
      }),
    ),
  },
});

const index = defineRoute({
  method: "get",
  path: "/index",
  tags: retrieval,
  summary: "A compact memory index for prompts (expand the ids you need)",
  request: { query: MemoryIndexQuerySchema },
  responses: {
    200: jsonAnswer(
      "One line per memory, and the same as text",
      z.object({
        index: z.array(
          z.object({ id: z.uuid(), type: z.enum(MEMORY_TYPES), when: z.string(), summary: z.string(), importance: z.number() }),
        ),
        text: z.string(),
      }),
    ),
  },
});

const expand = defineRoute({
  method: "post",
  path: "/expand",
  tags: retrieval,
  summary: "The full memories behind index ids",
  request: { body: jsonBody(ExpandMemoriesSchema) },
  responses: {
    200: jsonAnswer(
      "The memories with their sources; ids not found (or not the user's) in `missing`",
      z.object({ memories: z.array(MemorySchema), missing: z.array(z.uuid()) }),
    ),
  },
});

const CreatedSchema = z.object({
  operation: z.enum(["ADD", "UPDATE", "DELETE", "NOOP"]),
  reason: z.string(),
  memory: MemorySchema,
});

const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Structured ingestion through consolidation (deduplicated, superseding)",
  request: { body: jsonBody(CreateMemorySchema) },
  responses: {
    201: jsonAnswer("Added or updated: the memory with its sources", CreatedSchema),
    200: jsonAnswer("NOOP: already known; the memory that holds it", CreatedSchema),
  },
});

const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "A user's memories: current, a time slice, as of a time, or all versions",
  request: { query: ListMemoriesQuerySchema },
  responses: {
    200: jsonAnswer(
      "The memories (read each one's sources and history at /v1/memories/{id} and /v1/memories/{id}/history)",
      z.object({ memories: z.array(MemorySchema) }),
    ),
  },
});

const health = defineRoute({
  method: "get",
  path: "/health",
  tags,
  summary: "Memory health: counts by type, retention histogram, low retention, forgotten in 7 days, top accessed",
  request: { query: RetentionQuerySchema },
  responses: {
    200: jsonAnswer(
      "The user's memory at a glance, and the scheduled decay's λ and threshold",
      z.object({
        user_id: z.string(),
        app_id: z.string(),
        total: z.number().int(),
        by_type: z.record(z.string(), z.number().int()),
        average_retention: z.number(),
        low_retention: z.number().int(),
        forgotten_last_7_days: z.number().int(),
        /** Ten retention buckets: [0, 0.1), [0.1, 0.2), … [0.9, 1]. */
        retention_histogram: z.array(z.number().int()),
        top_accessed: z.array(
          z.object({ id: z.uuid(), type: z.string(), content: z.string(), access_count: z.number().int(), retention: z.number() }),
        ),
        decay: z.object({ lambda: z.number(), threshold: z.number() }),
      }),
    ),
  },
});

const retention = defineRoute({
  method: "get",
  path: "/retention",
  tags,
  summary: "Retention distribution of current memories (high ≥ 0.7, low < 0.3)",
  request: { query: RetentionQuerySchema },
  responses: {
    200: jsonAnswer(
      "Counts by retention band",
      z.object({
        user_id: z.string(),
        app_id: z.string(),
        total: z.number().int(),
        high: z.number().int(),
        medium: z.number().int(),
        low: z.number().int(),
        average: z.number(),
      }),
    ),
  },
});

const pin = defineRoute({
  method: "patch",
  path: "/{id}",
  tags,
  summary: "Pin or unpin a memory (a pinned memory is never forgotten)",
  request: { params: MemoryPath, body: jsonBody(PatchMemorySchema) },
  responses: { 200: jsonAnswer("The memory", MemorySchema) },
});

const read = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "One memory with its source events",
  request: { params: MemoryPath },
  responses: { 200: jsonAnswer("The memory with `sources`", MemorySchema) },
});

const history = defineRoute({
  method: "get",
  path: "/{id}/history",
  tags,
  summary: "Every change of a memory",
  request: { params: MemoryPath },
  responses: {
    200: jsonAnswer("Its changes, oldest first", z.object({ memory_id: z.uuid(), history: z.array(HistoryEntrySchema) })),
  },
});

const remove = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Soft delete (history kept)",
  request: { params: MemoryPath },
  responses: { 200: jsonAnswer("The memory as deleted", MemorySchema) },
});

const routes = apiRoutes<
  "db" | "clock" | "embedder" | "ann" | "recall" | "redaction" | "decay" | "accessRecorder" | "background" | "window"
>();
routes.use("/:id", ownedByCaller("memories"));
routes.use("/:id/*", ownedByCaller("memories"));

/** Memories with their provenance and history, structured ingestion and soft delete. */
export const memoryRoutes = routes
  .openapi(search, async (c) => {
    const { accessRecorder, background } = c.var.deps;
    const result = await searchMemory(c.var.deps, c.req.valid("json"));
    const ids = result.memories.map((memory) => memory.id);
    if (ids.length > 0) background.run(c, "record access", () => accessRecorder.record(ids));
    return c.json(
      {
        memories: result.memories.map((memory) => scoredMemoryJson(memory, result.leftOut ? result.now : undefined)),
        no_relevant_memory: result.noRelevantMemory,
        time_window: result.window
          ? { from: result.window.from?.toISOString() ?? null, to: result.window.to?.toISOString() ?? null }
          : null,
        warnings: result.warnings,
        ...(result.leftOut ? { explanation: { left_out: result.leftOut.map((entry) => leftOutJson(entry, result.now)) } } : {}),
      },
      200,
    );
  })
  .openapi(index, async (c) => {
    const entries = await memoryIndex(c.var.deps.db, c.req.valid("query"), c.var.deps.clock.now());
    return c.json({ index: entries.entries, text: entries.text }, 200);
  })
  .openapi(expand, async (c) => {
    const { memories, missing } = await expandMemories(c.var.deps.db, c.req.valid("json"));
    // One reading time for the whole answer.
    const at = retentionClock(c.var.deps);
    return c.json(
      { memories: memories.map(({ row, provenance }) => memoryJson(row, at, { provenance, withSources: true })), missing },
      200,
    );
  })
  .openapi(create, async (c) => {
    const { db, embedder } = c.var.deps;
    const operation = await createMemory({ db, embedder, clock: c.var.deps.clock, redaction: c.var.deps.redaction }, c.req.valid("json"));
    const { row, provenance } = await getMemory(db, operation.memory_id);
    const answer = {
      operation: operation.op,
      reason: operation.reason,
      memory: memoryJson(row, retentionClock(c.var.deps), { provenance, withSources: true }),
    };
    return operation.op === "NOOP" ? c.json(answer, 200) : c.json(answer, 201);
  })
  .openapi(list, async (c) => {
    const at = retentionClock(c.var.deps);
    const rows = await listMemories(c.var.deps.db, c.req.valid("query"), at.now);
    const { provenance, later } = await readWithLaterMentions(c.var.deps, rows, at.now);
    return c.json(
      {
        memories: rows.map((row) =>
          memoryJson(row, at, {
            provenance: provenance.get(row.id) ?? NO_PROVENANCE,
            withSources: false,
            ...(row.type === "semantic" && row.expiredAt === null ? { later: later.get(row.id) ?? [] } : {}),
          }),
        ),
      },
      200,
    );
  })
  .openapi(health, async (c) => {
    const query = c.req.valid("query");
    const scope = { appId: query.app_id, userId: query.user_id };
    return c.json(
      {
        user_id: query.user_id,
        app_id: query.app_id,
        ...(await memoryHealth(c.var.deps.db, scope, retentionClock(c.var.deps))),
        decay: c.var.deps.decay,
      },
      200,
    );
  })
  .openapi(retention, async (c) => {
    const query = c.req.valid("query");
    const scope = { appId: query.app_id, userId: query.user_id };
    return c.json(
      { user_id: query.user_id, app_id: query.app_id, ...(await retentionStats(c.var.deps.db, scope, retentionClock(c.var.deps))) },
      200,
    );
  })
  .openapi(pin, async (c) => {
    const row = await setPinned(c.var.deps.db, c.req.valid("param").id, c.req.valid("json").pinned, c.var.deps.clock.now());
    return c.json(memoryJson(row, retentionClock(c.var.deps), await readOne(c.var.deps.db, row.id)), 200);
  })
  .openapi(read, async (c) => {
    const { row, provenance } = await getMemory(c.var.deps.db, c.req.valid("param").id);
    const { later } = await readWithLaterMentions(c.var.deps, [row], c.var.deps.clock.now(), new Map([[row.id, provenance]]));
    const mentions = row.type === "semantic" && row.expiredAt === null ? { later: later.get(row.id) ?? [] } : {};
    return c.json(memoryJson(row, retentionClock(c.var.deps), { provenance, withSources: true, ...mentions }), 200);
  })
  .openapi(history, async (c) => {
    const { memory, entries } = await getMemoryHistory(c.var.deps.db, c.req.valid("param").id);
    return c.json({ memory_id: memory.id, history: entries.map(historyJson) }, 200);
  })
  .openapi(remove, async (c) => {
    const row = await deleteMemory(c.var.deps.db, c.req.valid("param").id, c.var.deps.clock.now());
    return c.json(memoryJson(row, retentionClock(c.var.deps), await readOne(c.var.deps.db, row.id)), 200);
  });

/** A single memory's reading for an answer: its provenance, its sources listed. */
async function readOne(db: Database, id: string): Promise<MemoryReading> {
  return { provenance: (await provenanceOf(db, [id])).get(id) ?? NO_PROVENANCE, withSources: true };
}

/** Later mentions a fact is listed with, at most this many, best first. */
const LATER_MENTIONS_PER_FACT = 3;

/** The rows' provenance, and their current facts' later mentions (at the service's CONTEXT_LATER_SIMILARITY). */
async function readWithLaterMentions(
  deps: Pick<AppDeps, "db" | "window">,
  rows: readonly MemoryRow[],
  now: Date,
  known?: Map<string, Provenance>,
): Promise<{ provenance: Map<string, Provenance>; later: Map<string, LaterStatement[]> }> {
  const provenance =
    known ??
    (await provenanceOf(
      deps.db,
      rows.map((row) => row.id),
    ));
  const later = await laterMentionsOfFacts(deps.db, rows, provenance, {
    now,
    minSimilarity: deps.window.laterSimilarity,
    byName: deps.window.laterNames,
    inQuestions: deps.window.questionStatements,
    perFact: LATER_MENTIONS_PER_FACT,
  });
  return { provenance, later };
}
