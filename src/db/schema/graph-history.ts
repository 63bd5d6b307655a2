import { bigint, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

/**
 * ADD, UPDATE, SUPERSEDE, DELETE (retracted), REDACT as for memories; RENAME (a new canonical name,
 * the old one kept as an alias), ALIAS (a new name), MERGE (two nodes found to be one: on the
 * absorbed node, naming the survivor, and on the survivor).
 */
export const GRAPH_OPERATIONS = ["ADD", "UPDATE", "SUPERSEDE", "DELETE", "REDACT", "RENAME", "ALIAS", "MERGE"] as const;
export type GraphOperation = (typeof GRAPH_OPERATIONS)[number];

/** Audit trail of the entity graph: one row per change of an entity or a relation, with before and after. */
export const graphHistory = pgTable(
  "graph_history",
  {
    id: uuid("id").primaryKey(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    /** The entity changed, or the subject of the relation changed. */
    entityId: uuid("entity_id"),
    relationId: uuid("relation_id"),
    operation: text("operation").$type<GraphOperation>().notNull(),
    actor: text("actor").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    reason: text("reason"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    /** Insertion order: one step writes several rows at one clock reading. */
    position: bigint("position", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
  },
  (table) => [
    index("graph_history_entity_idx").on(table.entityId, table.position),
    index("graph_history_relation_idx").on(table.relationId, table.position),
    index("graph_history_user_idx").on(table.appId, table.userId, table.createdAt),
  ],
);
