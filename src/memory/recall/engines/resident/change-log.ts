import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../../../db/database.js";
import { current, m, notDissolved, ownedBy } from "../../../visibility.js";
import { TURN_SEQ } from "../turn-seq.js";

/**
 * What the resident copy of one user's memories needs to hear about: every row inserted, every row
 * whose words, vector or visibility changed, every row deleted, in the order it happened. The
 * sequence, column, table and triggers are in the schema (`db/schema/memory-change-log.ts`,
 * migration 0017); the triggers write only while the setting `mnemo.change_log` is `on`, as every
 * embedded session sets it.
 *
 * Embedded (PGlite) only. Sequence order is commit order there because one connection runs one
 * transaction at a time; on a server, a transaction that drew a lower value could commit after a
 * reader had moved past it, and that change would be missed. The server has its HNSW index instead.
 */

/**
 * Starts the change log afresh for this process's resident copies (embedded): deletions logged by
 * an earlier process are dropped, since no copy outlives its process and a fresh one reads the
 * rows themselves. The log itself is on in every embedded session (`db/connect.ts`).
 *
 * @example
 * if (handle.kind === "pglite") await openChangeLog(handle.db);
 */
export async function openChangeLog(db: Database): Promise<void> {
  await db.execute(sql`TRUNCATE memory_deletions`);
}

/** One change to a user's memories: the row as it is now, or the deletion of a row (anyone's). */
export interface MemoryChange {
  id: string;
  change_seq: string;
  deleted: boolean;
  session_id: string | null;
  turn_seq: number | null;
  created_at: string | null;
  created_ms: number | null;
  type: string | null;
  valid_ms: number | null;
  invalid_ms: number | null;
  /** Not expired and not a dissolved trait: what a query about the present may see at all. */
  live: boolean | null;
  /** `halfvec_send` of the embedding as hex, when the row has a vector of the resident model. */
  vector: string | null;
  /** The distinct lexemes of `content_tsv`, for a live row. */
  lexemes: string[] | null;
}

/**
 * The user's changes, and every deletion, after `after`, oldest first, at most `limit`. The vector travels as hex:
 * PGlite decodes a `bytea` of 100K vectors ten times slower than the same bytes as text.
 */
export async function changesAfter(
  db: Pick<Database, "execute">,
  scope: { appId: string; userId: string },
  model: string,
  after: bigint,
  limit: number,
): Promise<MemoryChange[]> {
  const since = after.toString();
  return queryRows<MemoryChange>(
    db,
    sql`(SELECT ${m.id}, ${m.changeSeq}::text AS change_seq, false AS deleted, ${m.sessionId}, ${TURN_SEQ} AS turn_seq,
                ${m.createdAt}::text AS created_at, (extract(epoch FROM ${m.createdAt}) * 1000)::float8 AS created_ms, ${m.type},
                (extract(epoch FROM ${m.validAt}) * 1000)::float8 AS valid_ms, (extract(epoch FROM ${m.invalidAt}) * 1000)::float8 AS invalid_ms,
                (${current(m)} AND ${notDissolved(m)}) AS live,
                CASE WHEN ${m.embeddingModel} = ${model} THEN encode(halfvec_send(${m.embedding}), 'hex') END AS vector,
                CASE WHEN ${current(m)} THEN tsvector_to_array(${m.contentTsv}) END AS lexemes
           FROM memories m
          WHERE ${ownedBy(m, scope)} AND ${m.changeSeq} > ${since}::bigint
          ORDER BY ${m.changeSeq} LIMIT ${limit})
        UNION ALL
        (SELECT d.id, d.change_seq::text, true, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
           FROM memory_deletions d
          WHERE d.change_seq > ${since}::bigint
          ORDER BY d.change_seq LIMIT ${limit})
        ORDER BY change_seq LIMIT ${limit}`,
  );
}

/** Forgets deletions every copy has read (all of them when no copy exists: a new copy reads the rows themselves). */
export async function pruneDeletions(db: Pick<Database, "execute">, readByAll: bigint | undefined): Promise<void> {
  await db.execute(
    readByAll === undefined
      ? sql`DELETE FROM memory_deletions`
      : sql`DELETE FROM memory_deletions WHERE change_seq <= ${readByAll.toString()}::bigint`,
  );
}
