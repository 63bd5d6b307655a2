import { CreateInsightSchema, createMemory } from "../../../src/memory/write/memory-commands.js";
import { defineTool } from "../tool.js";

/** What `POST /v1/memories` takes for an insight; the tool writes insights only, so `type` is implied. */
const AddMemoryInput = CreateInsightSchema.omit({ type: true });

/** `add_memory`: an insight through consolidation, as `POST /v1/memories` writes it (deduplicated, with history). */
export const addMemory = defineTool<"db" | "embedder" | "clock" | "redaction">()({
  name: "add_memory",
  title: "Remember",
  description:
    "Remember something about the user (an insight): `content` in a sentence, deduplicated against what is already known. " +
    "`importance` (0 to 1) weighs it in recall; `valid_at` says since when it is true; `source_event_ids` names the session events it comes from.",
  input: AddMemoryInput,
  example: { user_id: "ana", content: "Ana is allergic to peanuts.", importance: 0.8, valid_at: "2026-03-01T00:00:00Z" },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const { db, embedder, clock, redaction } = deps;
    const operation = await createMemory({ db, embedder, clock, redaction }, { ...input, type: "insight" });
    return { operation: operation.op, memory_id: operation.memory_id, reason: operation.reason };
  },
});
