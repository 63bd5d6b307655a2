import { date, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

/**
 * Cost metering: LLM and embedding calls per app, user, day, provider, model and stage, one row
 * each, counted up as calls happen (a retried call is paid for, so it counts). `user_id` is ''
 * for calls that belong to no user.
 */
export const providerUsage = pgTable(
  "provider_usage",
  {
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    day: date("day").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    stage: text("stage").notNull(),
    calls: integer("calls").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.appId, table.day, table.userId, table.provider, table.model, table.stage] })],
);
