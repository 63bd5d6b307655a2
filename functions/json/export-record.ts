import { z } from "zod";
import type { ExportRecord } from "../../src/users/export-user.js";
import { EventSchema, eventJson } from "./event.js";
import { HistoryEntrySchema, historyJson } from "./history.js";
import { MemorySchema, memoryJson } from "./memory.js";
import { SessionSchema, sessionJson } from "./session.js";

/**
 * One line of an export (`GET /v1/users/:id/export`, `mnemo export`): what is stored, tagged with
 * its kind, in the API's shapes. `mnemo import` parses an export with this same schema.
 */
export const ExportRecordSchema = z.discriminatedUnion("kind", [
  SessionSchema.extend({ kind: z.literal("session") }),
  EventSchema.extend({ kind: z.literal("event") }),
  MemorySchema.extend({ kind: z.literal("memory") }),
  HistoryEntrySchema.extend({ kind: z.literal("history"), memory_id: z.uuid() }),
]);

/** An export record: what is stored, so a memory has no retention (computed when read, from its access count and time). */
export function exportJson(record: ExportRecord): z.infer<typeof ExportRecordSchema> {
  switch (record.kind) {
    case "session":
      return { kind: record.kind, ...sessionJson(record.row) };
    case "event":
      return { kind: record.kind, ...eventJson(record.row) };
    case "memory":
      return { kind: record.kind, ...memoryJson(record.row, null, { provenance: record.provenance, withSources: true }) };
    case "history":
      return { kind: record.kind, memory_id: record.row.memoryId, ...historyJson(record.row) };
  }
}
