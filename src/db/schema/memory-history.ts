import { bigint, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

/** REDACT: a source event was redacted and the memory came only from redacted events (its words are gone). */
export const HISTORY_OPERATIONS = ["ADD", "UPDATE", "DELETE", "SUPERSEDE", "STAGE_CHANGE", "REDACT"] as const;
export type HistoryOperation = (typeof HISTORY_OPERATIONS)[number];

/** Audit trail: one row per change of a memory, with who made it and the before/after. */
export const memoryHistory = pgTable(
  "memory_history",
  {
    id: uuid("id").primaryKey(),
    memoryId: uuid("memory_id").notNull(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    operation: text("operation").$type<HistoryOperation>().notNull(),
    actor: text("actor").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    reason: text("reason"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    /**
     * Insertion order. One pipeline step writes several rows at its clock's time (a trait's UPDATE
     * and STAGE_CHANGE, say), so `created_at` ties; a memory's writers hold its user's lock, so
     * this order is the order its changes happened in.
     */
    position: bigint("position", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
  },
  (table) => [
    index("memory_history_memory_idx").on(table.memoryId, table.createdAt),
    // A user's recent changes: live streams (every second), the health panel, export and erasure.
    index("memory_history_user_idx").on(table.appId, table.userId, table.createdAt),
  ],
);
