import { z } from "zod";
import type { InstructionRow } from "../../src/memory/procedural/instructions.js";
import { Timestamp } from "./timestamp.js";

/** One version of a procedural instruction. */
export const InstructionSchema = z.object({
  app_id: z.string(),
  key: z.string(),
  version: z.number().int(),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: Timestamp,
});

export function instructionJson(row: InstructionRow): z.infer<typeof InstructionSchema> {
  return {
    app_id: row.appId,
    key: row.key,
    version: row.version,
    content: row.content,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
  };
}
