import { sql } from "drizzle-orm";
import { bigint, pgSequence, pgTable, uuid } from "drizzle-orm/pg-core";

/**
 * The memory change log, read by the embedded recall engine's in-process copies (see
 * `memory/recall/engines/resident/change-log.ts`). Every insert, every update of a column a copy
 * holds and every deletion of a memory takes the next value of this sequence: an insert or update
 * stamps `memories.change_seq`, a deletion leaves the row's id here. Triggers do it (migration
 * 0017), and only while the setting `mnemo.change_log` is `on`, which every embedded session sets
 * (`db/connect.ts`): a server has its HNSW index instead, and there the log stays empty.
 */
export const memoriesChangeSeq = pgSequence("memories_change_seq");

/** Ids of deleted memories, each under the change log's value of its deletion; only the id, a random uuid, so nothing here says whose it was. */
export const memoryDeletions = pgTable("memory_deletions", {
  changeSeq: bigint("change_seq", { mode: "number" }).primaryKey().default(sql`nextval('memories_change_seq')`),
  id: uuid("id").notNull(),
});
