import { type SQL, sql } from "drizzle-orm";

/**
 * The one order in which a statement that changes several memories locks them: ascending id.
 * Two transactions that take row locks in the same order can wait for each other but never in a
 * circle, so a decay pass, an erasure, a rebuild and the access recorder running side by side on
 * a real Postgres never deadlock over memories. An UPDATE or DELETE has no ORDER BY of its own (it
 * locks rows in whatever order its plan reads them: an index on time, a hash join, the heap), so
 * the rows are first selected in id order `FOR UPDATE` and the change joins them by id.
 *
 * `condition` is written against the alias `m`; the rows it matches when locked are the rows
 * changed (a row changed by another transaction meanwhile is checked again after the wait).
 *
 * @example
 * await tx.execute(sql`UPDATE memories AS m SET pinned = true FROM ${memoriesLockedInIdOrder(sql`m.user_id = ${userId}`)} WHERE m.id = locked.id`);
 */
export function memoriesLockedInIdOrder(condition: SQL, options: { skipLocked?: boolean } = {}): SQL {
  return sql`(SELECT m.id FROM memories m WHERE ${condition} ORDER BY m.id FOR UPDATE OF m${options.skipLocked ? sql` SKIP LOCKED` : sql``}) AS locked`;
}
