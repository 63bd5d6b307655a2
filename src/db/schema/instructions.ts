import { integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

/** Procedural memory: versioned instructions per app; a write adds a version, never edits one. */
export const instructions = pgTable(
  "instructions",
  {
    appId: text("app_id").notNull(),
    key: text("key").notNull(),
    version: integer("version").notNull(),
    content: text("content").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.appId, table.key, table.version] })],
);
