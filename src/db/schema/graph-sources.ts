import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";
import { entities } from "./entities.js";
import { relations } from "./relations.js";

/**
 * The session events that name an entity (or that it said, `said`: a named participant's own
 * turns), with the name used there (`surface`). What ties "Maya won the spelling bee" to what is
 * known of Maya; every name an entity has is grounded in one of these, so a redacted event takes
 * its names with it.
 */
export const entityMentions = pgTable(
  "entity_mentions",
  {
    entityId: uuid("entity_id")
      .notNull()
      .references(() => entities.id, { onDelete: "cascade" }),
    eventId: uuid("event_id").notNull(),
    sessionId: uuid("session_id").notNull(),
    seq: integer("seq").notNull(),
    surface: text("surface").notNull(),
    said: boolean("said").notNull().default(false),
    /** When the event happened: an entity's latest mentions are read first. */
    occurredAt: timestampTz("occurred_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.entityId, table.eventId, table.surface] }),
    index("entity_mentions_event_idx").on(table.eventId),
    index("entity_mentions_entity_time_idx").on(table.entityId, table.occurredAt.desc()),
    // The conversation's speakers: whether an entity ever spoke is read per entity a statement
    // names (later statements), however often it is named.
    index("entity_mentions_said_idx").on(table.entityId).where(sql`${table.said}`),
  ],
);

/** Provenance of a relation: the session events it was stated in. */
export const relationSources = pgTable(
  "relation_sources",
  {
    relationId: uuid("relation_id")
      .notNull()
      .references(() => relations.id, { onDelete: "cascade" }),
    eventId: uuid("event_id").notNull(),
    sessionId: uuid("session_id").notNull(),
    seq: integer("seq").notNull(),
  },
  (table) => [primaryKey({ columns: [table.relationId, table.eventId] }), index("relation_sources_event_idx").on(table.eventId)],
);
