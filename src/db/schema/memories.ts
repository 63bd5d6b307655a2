import { type SQL, sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { float4, halfvec, timestampTz, tsvector, varbit } from "./columns.js";
import { sessions } from "./sessions.js";

export const MEMORY_TYPES = ["episodic", "semantic", "insight", "procedural", "trait"] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/** Trait lifecycle: a trend is observed inside a window; reinforcement promotes it. */
export const TRAIT_STAGES = ["trend", "emerging", "established", "core", "dissolved"] as const;
export type TraitStage = (typeof TRAIT_STAGES)[number];

/**
 * Every kind of derived memory in one table, bi-temporal: `valid_at`/`invalid_at` is
 * when the statement was true in the world, `created_at`/`expired_at` when this row was the
 * system's belief. A superseded row is expired and points at its successor, never overwritten.
 * Rows are written without an embedding; the backfill fills `embedding` and `embedding_model`.
 */
export const memories = pgTable(
  "memories",
  {
    id: uuid("id").primaryKey(),
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    sessionId: uuid("session_id").references(() => sessions.id, { onDelete: "set null" }),
    type: text("type").$type<MemoryType>().notNull(),
    /** summary / preference / rule / profile / behavior / core … refines `type`. */
    subtype: text("subtype"),
    content: text("content").notNull(),
    key: text("key"),
    value: jsonb("value"),
    importance: float4("importance").notNull().default(0.5),
    confidence: float4("confidence").notNull().default(1),
    validAt: timestampTz("valid_at").notNull().defaultNow(),
    invalidAt: timestampTz("invalid_at"),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
    expiredAt: timestampTz("expired_at"),
    version: integer("version").notNull().default(1),
    supersededBy: uuid("superseded_by"),
    contentHash: text("content_hash").notNull(),
    accessCount: integer("access_count").notNull().default(0),
    lastAccessedAt: timestampTz("last_accessed_at").notNull().defaultNow(),
    // No `retention` here: it is computed when read (`currentRetention`, `retentionSql`). The
    // column of 0001 stays in the database, unread and unwritten, until no running version of the
    // service reads it; `npm run db:generate` then writes the migration that drops it.
    pinned: boolean("pinned").notNull().default(false),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    embedding: halfvec("embedding"),
    embeddingModel: text("embedding_model"),
    /**
     * One bit per dimension (pgvector `binary_quantize`), kept in step with `embedding` by
     * Postgres itself. Hamming distance over bits finds candidates ~4× faster than cosine over
     * halfvec at 100K rows; the candidates are then re-ranked by exact cosine.
     */
    embeddingBits: varbit("embedding_bits").generatedAlwaysAs((): SQL => sql`binary_quantize(${memories.embedding})::varbit`),
    embeddedAt: timestampTz("embedded_at"),
    traitStage: text("trait_stage").$type<TraitStage>(),
    reinforcementCount: integer("reinforcement_count").notNull().default(0),
    contradictionCount: integer("contradiction_count").notNull().default(0),
    firstObservedAt: timestampTz("first_observed_at"),
    lastReinforcedAt: timestampTz("last_reinforced_at"),
    windowStart: timestampTz("window_start"),
    windowEnd: timestampTz("window_end"),
    contentTsv: tsvector("content_tsv").generatedAlwaysAs((): SQL => sql`to_tsvector('english', ${memories.content})`),
    updatedAt: timestampTz("updated_at").notNull().defaultNow(),
    /** The change log's value of the row's last change that a resident copy holds (see `memory-change-log.ts`); null while the log is off. */
    changeSeq: bigint("change_seq", { mode: "number" }),
  },
  (table) => [
    index("memories_user_time_idx").on(table.appId, table.userId, table.createdAt.desc()),
    // Time-slice retrieval: a user's current memories in a window of world time.
    index("memories_user_valid_idx").on(table.appId, table.userId, table.validAt.desc()).where(sql`${table.expiredAt} IS NULL`),
    index("memories_user_hash_idx").on(table.appId, table.userId, table.contentHash),
    index("memories_user_key_idx").on(table.appId, table.userId, table.key).where(sql`${table.expiredAt} IS NULL`),
    // A user's memories holding a word, found in the index (btree_gin adds user_id as a key): with
    // the word alone, a common word's every match across all users was read from the heap and
    // filtered down to one user's.
    index("memories_user_tsv_idx").using("gin", table.userId, table.contentTsv),
    // Turn episodes by position, for fetching a hit's neighbouring turn.
    index("memories_session_turn_idx").on(table.sessionId, sql`((${table.metadata} ->> 'seq')::int)`).where(sql`${table.subtype} = 'turn'`),
    // A user's changes since a resident copy last read, in order; empty while the log is off.
    index("memories_user_change_idx").on(table.appId, table.userId, table.changeSeq).where(sql`${table.changeSeq} IS NOT NULL`),
    index("memories_unembedded_idx").on(table.createdAt).where(sql`${table.embedding} IS NULL AND ${table.expiredAt} IS NULL`),
    // A user's facts that stopped being true, few beside the rest: what marks a recalled episode
    // superseded starts here (without it, a scan of all the user's memories per episode read).
    index("memories_user_ended_facts_idx")
      .on(table.appId, table.userId, table.key)
      .where(sql`${table.type} = 'semantic' AND ${table.invalidAt} IS NOT NULL`),
  ],
);
