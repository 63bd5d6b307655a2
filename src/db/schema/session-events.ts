import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { float4, timestampTz } from "./columns.js";
import { sessions } from "./sessions.js";

/**
 * The append-only session log (E2). Rows are never updated but by a redaction, which replaces an
 * event's words with a tombstone (`content` empty, `data.tombstone`) and keeps its seq, so the log
 * stays gapless; every memory is derived from them (E4).
 * `request_hash` fingerprints what the client sent with an idempotency key, so a re-send with the
 * same key and the same content is recognised and one with different content is a conflict.
 */
export const sessionEvents = pgTable(
  "session_events",
  {
    id: uuid("id").primaryKey(),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    role: text("role").notNull(),
    content: text("content").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>(),
    tokenCount: integer("token_count").notNull(),
    /** Rule-based importance at append time; its sum past the reflection watermark triggers reflection. */
    importance: float4("importance").notNull().default(0),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    occurredAt: timestampTz("occurred_at").notNull(),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
  },
  (table) => [
    unique("session_events_seq_unique").on(table.sessionId, table.seq),
    uniqueIndex("session_events_idempotency_idx").on(table.sessionId, table.idempotencyKey).where(sql`${table.idempotencyKey} IS NOT NULL`),
    index("session_events_user_idx").on(table.appId, table.userId, table.occurredAt.desc()),
  ],
);
