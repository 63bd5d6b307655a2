import { index, integer, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";
import { memories } from "./memories.js";

/** Provenance: the session events a memory was derived from. */
export const memorySources = pgTable(
  "memory_sources",
  {
    memoryId: uuid("memory_id")
      .notNull()
      .references(() => memories.id, { onDelete: "cascade" }),
    eventId: uuid("event_id").notNull(),
    sessionId: uuid("session_id").notNull(),
    seq: integer("seq").notNull(),
  },
  (table) => [primaryKey({ columns: [table.memoryId, table.eventId] }), index("memory_sources_event_idx").on(table.eventId)],
);
