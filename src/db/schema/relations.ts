import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { float4, timestampTz } from "./columns.js";
import { entities } from "./entities.js";

/**
 * An edge of the entity graph: `subject` `predicate` `object`, the object another entity or a
 * literal (`object_value`), with the sentence it stands for (`content`). Bi-temporal with the
 * facts' semantics: `valid_at` / `invalid_at` is when it held in the world, `created_at` /
 * `expired_at` when the system believed this row; a contradicting newer statement closes it
 * (`invalid_at`, `expired_at`, `superseded_by`) and keeps it, a retraction sets `invalid_at` only.
 * Sources in `relation_sources`, changes in `graph_history`.
 */
export const relations = pgTable(
  "relations",
  {
    id: uuid("id").primaryKey(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    subjectId: uuid("subject_id")
      .notNull()
      .references(() => entities.id, { onDelete: "cascade" }),
    predicate: text("predicate").notNull(),
    objectId: uuid("object_id").references(() => entities.id, { onDelete: "cascade" }),
    objectValue: text("object_value"),
    content: text("content").notNull(),
    confidence: float4("confidence").notNull().default(1),
    validAt: timestampTz("valid_at").notNull(),
    invalidAt: timestampTz("invalid_at"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    expiredAt: timestampTz("expired_at"),
    supersededBy: uuid("superseded_by"),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [
    // A node's edges both ways, for the two-hop walk and for a statement's earlier versions.
    index("relations_subject_idx").on(table.subjectId, table.predicate),
    index("relations_object_idx").on(table.objectId).where(sql`${table.objectId} IS NOT NULL`),
    index("relations_user_idx").on(table.appId, table.userId, table.createdAt),
  ],
);
