import { jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

export const STATE_SCOPES = ["session", "user", "app"] as const;
export type StateScope = (typeof STATE_SCOPES)[number];

/**
 * Key-value state with ADK's three scopes (E3): `session` rows are keyed by session id, `user`
 * rows by user id, `app` rows by the empty string, always inside one app.
 */
export const scopedState = pgTable(
  "scoped_state",
  {
    appId: text("app_id").notNull(),
    scope: text("scope").$type<StateScope>().notNull(),
    ownerId: text("owner_id").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.appId, table.scope, table.ownerId] })],
);
