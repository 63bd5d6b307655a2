import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { EntityKind } from "../../vocabulary/entity-kinds.js";
import { halfvec, timestampTz } from "./columns.js";

/**
 * A node of a user's entity graph: a person, pet, place, organisation, object or event the
 * conversations name (issue 40). `name` is what it is called now; every other name it went by is
 * in `aliases`, and `keys` holds all of them folded (`nameKey`), which is what mentions and queries
 * are matched against. Bi-temporal like memories: `valid_at` is when it was first named in the
 * world, `created_at` / `expired_at` when this row was the system's belief. A node merged into
 * another (two nodes found to be one) is expired and points at the survivor (`merged_into`), never
 * deleted, so its history stays readable. `self` marks the user's own node, one per user.
 */
export const entities = pgTable(
  "entities",
  {
    id: uuid("id").primaryKey(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    name: text("name").notNull(),
    /** `name` folded: one current node per user, kind and name. */
    nameKey: text("name_key").notNull(),
    kind: text("kind").$type<EntityKind>().notNull(),
    self: boolean("self").notNull().default(false),
    aliases: text("aliases").array().notNull().default(sql`'{}'::text[]`),
    keys: text("keys").array().notNull().default(sql`'{}'::text[]`),
    summary: text("summary"),
    /** Of "name (kind): summary", for resolving a newly named entity to one the user has (never compared across models). */
    embedding: halfvec("embedding"),
    embeddingModel: text("embedding_model"),
    validAt: timestampTz("valid_at").notNull(),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    expiredAt: timestampTz("expired_at"),
    mergedInto: uuid("merged_into"),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [
    // Never two current nodes of one kind under one name for one user, whatever the race.
    uniqueIndex("entities_user_name_idx").on(table.appId, table.userId, table.kind, table.nameKey).where(sql`${table.expiredAt} IS NULL`),
    uniqueIndex("entities_user_self_idx").on(table.appId, table.userId).where(sql`${table.self} AND ${table.expiredAt} IS NULL`),
    // The nodes a query or a message names, by any of their names (btree_gin adds the user as a key).
    index("entities_user_keys_idx").using("gin", table.userId, table.keys),
    index("entities_user_idx").on(table.appId, table.userId, table.createdAt),
  ],
);
