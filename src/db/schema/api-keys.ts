import { pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";

/**
 * API keys per app. Only a SHA-256 of the key is stored: the key itself is shown once, when the
 * CLI creates it. A revoked key stays for the record and no longer authenticates.
 */
export const apiKeys = pgTable("api_keys", {
  id: uuid("id").primaryKey(),
  appId: text("app_id").notNull(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  /** The first characters of the key, to tell keys apart in listings. */
  prefix: text("prefix").notNull(),
  createdAt: timestampTz("created_at").notNull().defaultNow(),
  revokedAt: timestampTz("revoked_at"),
});

/**
 * Signed webhook deliveries already accepted, so a replayed delivery is refused; kept for twice
 * the tolerance window, with the user they named so erasure removes them too.
 */
export const webhookDeliveries = pgTable("webhook_deliveries", {
  signature: text("signature").primaryKey(),
  appId: text("app_id"),
  userId: text("user_id"),
  receivedAt: timestampTz("received_at").notNull().defaultNow(),
});
