import { z } from "zod";
import { MEMORY_TYPES } from "../../src/db/schema/memories.js";
import type { MemoryState } from "../../src/pipeline/derive/memory-diff.js";
import type { RebuildPreview } from "../../src/pipeline/derive/preview-rebuild.js";

const DerivedContentSchema = z.object({ content: z.string(), value: z.unknown(), trait_stage: z.string().optional() });

/** A memory as a rebuild preview shows it; `memory_id` names a stored one (a derived one has none yet). */
const DerivedMemorySchema = DerivedContentSchema.extend({
  memory_id: z.uuid().optional(),
  type: z.enum(MEMORY_TYPES),
  subtype: z.string().nullable(),
  key: z.string().nullable(),
  session_id: z.uuid().nullable(),
});

const GraphLinesSchema = z.object({ entities: z.array(z.string()), relations: z.array(z.string()) });

/** `dry_run: true`: the memory derived again in a rolled-back shadow, as its difference from what is stored. */
export const RebuildPreviewSchema = z.object({
  user_id: z.string(),
  app_id: z.string(),
  dry_run: z.literal(true),
  llm: z.string(),
  embedding_model: z.string(),
  sessions: z.number().int(),
  counts: z.object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int(), unchanged: z.number().int() }),
  graph: z
    .object({ added: GraphLinesSchema, removed: GraphLinesSchema })
    .describe("What the derivation adds to and removes from the entity graph, as lines (`Maya (person)`, `Maya teacher Mr. Ortiz`)"),
  added: z.array(DerivedMemorySchema),
  removed: z.array(DerivedMemorySchema),
  changed: z.array(
    z.object({
      memory_id: z.uuid(),
      type: z.enum(MEMORY_TYPES),
      subtype: z.string().nullable(),
      key: z.string().nullable(),
      session_id: z.uuid().nullable(),
      before: DerivedContentSchema,
      after: DerivedContentSchema,
    }),
  ),
});

// Derivation writes only the memory types there are.
const memoryType = (type: string) => type as (typeof MEMORY_TYPES)[number];

function derivedContent(memory: MemoryState) {
  return { content: memory.content, value: memory.value ?? null, ...(memory.traitStage ? { trait_stage: memory.traitStage } : {}) };
}

function derivedMemoryJson(memory: MemoryState, stored: boolean): z.infer<typeof DerivedMemorySchema> {
  return {
    ...(stored ? { memory_id: memory.id } : {}),
    type: memoryType(memory.type),
    subtype: memory.subtype,
    key: memory.key,
    ...derivedContent(memory),
    session_id: memory.sessionId,
  };
}

export function rebuildPreviewJson(
  scope: { appId: string; userId: string },
  preview: RebuildPreview,
  providers: { llm: string; embedder: string },
): z.infer<typeof RebuildPreviewSchema> {
  return {
    user_id: scope.userId,
    app_id: scope.appId,
    dry_run: true,
    llm: providers.llm,
    embedding_model: providers.embedder,
    sessions: preview.sessions,
    counts: {
      added: preview.added.length,
      removed: preview.removed.length,
      changed: preview.changed.length,
      unchanged: preview.unchanged,
    },
    graph: preview.graph,
    added: preview.added.map((memory) => derivedMemoryJson(memory, false)),
    removed: preview.removed.map((memory) => derivedMemoryJson(memory, true)),
    changed: preview.changed.map(({ before, after }) => ({
      memory_id: before.id,
      type: memoryType(before.type),
      subtype: before.subtype,
      key: before.key ?? after.key,
      session_id: before.sessionId,
      before: derivedContent(before),
      after: derivedContent(after),
    })),
  };
}
