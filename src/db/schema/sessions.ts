import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

/**
 * A thread of one user with one agent (E1). `last_seq` is the sequence of the newest event and is
 * bumped in the same statement that appends, which is what keeps sequences gapless.
 * `replayed_seq` is the fast-replay watermark: events up to it are summarised;
 * `reflected_seq` is deep reflection's.
 * Columns that every append changes (`last_seq`, `last_event_at`) are deliberately not indexed,
 * so the per-append UPDATE stays a heap-only (HOT) update.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    agentId: text("agent_id"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    lastSeq: integer("last_seq").notNull().default(0),
    replayedSeq: integer("replayed_seq").notNull().default(0),
    reflectedSeq: integer("reflected_seq").notNull().default(0),
    /**
     * Deep reflection was asked for up to here (importance, a rebuild, a webhook): recorded with
     * the request, so a lost event is found by the sweep. An ended session is due up to `last_seq`.
     */
    reflectionRequestedSeq: integer("reflection_requested_seq").notNull().default(0),
    startedAt: timestampTz("started_at").notNull().defaultNow(),
    endedAt: timestampTz("ended_at"),
    lastEventAt: timestampTz("last_event_at"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
  },
  (table) => [
    index("sessions_user_idx").on(table.appId, table.userId, table.startedAt.desc()),
    check("sessions_watermarks_check", sql`${table.replayedSeq} <= ${table.lastSeq} AND ${table.reflectedSeq} <= ${table.lastSeq}`),
  ],
);
