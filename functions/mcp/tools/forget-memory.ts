import { z } from "zod";
import { notFound } from "../../../src/errors.js";
import { getMemory } from "../../../src/memory/read/memory-read.js";
import { deleteMemory } from "../../../src/memory/write/memory-commands.js";
import { ExternalIdSchema } from "../../../src/vocabulary/external-id.js";
import { defineTool } from "../tool.js";

/** The user a memory belongs to, as the memory routes name one, and the memory's id (`DELETE /v1/memories/{id}`). */
const ForgetMemoryInput = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  memory_id: z.uuid(),
});

/** `forget_memory`: a soft delete, as `DELETE /v1/memories/{id}` (history kept), of one of the named user's memories. */
export const forgetMemory = defineTool<"db" | "clock">()({
  name: "forget_memory",
  title: "Forget",
  description: "Forget one of the user's memories by `memory_id` (as `search_memory` returns it): a soft delete, its history is kept.",
  input: ForgetMemoryInput,
  example: { user_id: "ana", memory_id: "0b7e3c1a-3f0e-4f7a-9f3e-2d8f6c1b5a90" },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const { row } = await getMemory(deps.db, input.memory_id);
    // Another app's or user's memory is "not found", never "forbidden": a caller learns nothing of it.
    if (row.appId !== input.app_id || row.userId !== input.user_id) throw notFound("memory", input.memory_id);
    const deleted = await deleteMemory(deps.db, input.memory_id, deps.clock.now(), "mcp");
    return { forgotten: deleted.id, content: deleted.content };
  },
});
