import { z } from "zod";
import { HISTORY_OPERATIONS, type memoryHistory } from "../../src/db/schema/index.js";
import { Timestamp } from "./timestamp.js";

/** One change of a memory: what it was before and after, who made it and why. */
export const HistoryEntrySchema = z.object({
  id: z.uuid(),
  operation: z.enum(HISTORY_OPERATIONS),
  actor: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string().nullable(),
  created_at: Timestamp,
});

export function historyJson(row: typeof memoryHistory.$inferSelect): z.infer<typeof HistoryEntrySchema> {
  return {
    id: row.id,
    operation: row.operation,
    actor: row.actor,
    before: row.before ?? null,
    after: row.after ?? null,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
  };
}
