import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../../db/database.js";

/**
 * What the resident copy of one user's memories needs to hear about: every row inserted, every row whose
 * words, vector or visibility changed, every row deleted, in the order it happened. `memories.change_seq`
 * takes a new value from one sequence on each such write (a trigger, so no writer can forget it),
 * and a deleted row leaves its id in `memory_deletions` under a value of the same sequence. Only
 * the id, a random uuid: an erased user leaves nothing there that says who they were, so every
 * copy reads every deletion and ignores the ids it does not hold.
 *
 * Embedded (PGlite) only. Sequence order is commit order there because one connection runs one
 * transaction at a time; on a server, a transaction that drew a lower value could commit after a
 * reader had moved past it, and that change would be missed. The server has its HNSW index instead.
 *
 * The trigger fires only for updates that name a column a recall reads from the resident copy, so
 * the access recorder (counts) pays nothing for it.
 */
const CHANGE_LOG_DDL = [
  `CREATE SEQUENCE IF NOT EXISTS memories_change_seq`,
  `ALTER TABLE memories ADD COLUMN IF NOT EXISTS change_seq bigint`,
  `CREATE INDEX IF NOT EXISTS memories_user_change_idx ON memories (app_id, user_id, change_seq)`,
  `CREATE TABLE IF NOT EXISTS memory_deletions (
     change_seq bigint PRIMARY KEY DEFAULT nextval('memories_change_seq'), id uuid NOT NULL)`,
  `CREATE OR REPLACE FUNCTION memories_mark_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN NEW.change_seq := nextval('memories_change_seq'); RETURN NEW; END $$`,
  `CREATE OR REPLACE TRIGGER memories_mark_insert BEFORE INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memories_mark_change()`,
  `CREATE OR REPLACE TRIGGER memories_mark_update
     BEFORE UPDATE OF content, embedding, embedding_model, type, subtype, session_id, metadata, created_at, valid_at, invalid_at, expired_at, trait_stage
     ON memories FOR EACH ROW EXECUTE FUNCTION memories_mark_change()`,
  `CREATE OR REPLACE FUNCTION memories_log_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN INSERT INTO memory_deletions (id) SELECT id FROM gone; RETURN NULL; END $$`,
  `CREATE OR REPLACE TRIGGER memories_log_deletions AFTER DELETE ON memories REFERENCING OLD TABLE AS gone
     FOR EACH STATEMENT EXECUTE FUNCTION memories_log_deletions()`,
];

/**
 * Installs the change log (idempotent) and starts it afresh: when it is new, the rows written
 * before it get a value; deletions logged by an earlier process are dropped, since no resident copy outlives
 * its process and a fresh one reads the rows themselves.
 */
export async function installChangeLog(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    const [log] = await queryRows<{ exists: boolean }>(
      tx,
      sql`SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'change_seq' AND NOT attisdropped) AS exists`,
    );
    for (const statement of CHANGE_LOG_DDL) await tx.execute(sql.raw(statement));
    // Once, when the log is new: from then on the trigger stamps every row (no scan at each start).
    if (!log?.exists) await tx.execute(sql`UPDATE memories SET change_seq = nextval('memories_change_seq') WHERE change_seq IS NULL`);
    await tx.execute(sql`TRUNCATE memory_deletions`);
  });
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
    sql`(SELECT m.id, m.change_seq::text AS change_seq, false AS deleted, m.session_id,
                CASE WHEN m.subtype = 'turn' THEN (m.metadata ->> 'seq')::int END AS turn_seq, m.created_at::text AS created_at,
                (extract(epoch FROM m.created_at) * 1000)::float8 AS created_ms, m.type,
                (extract(epoch FROM m.valid_at) * 1000)::float8 AS valid_ms, (extract(epoch FROM m.invalid_at) * 1000)::float8 AS invalid_ms,
                (m.expired_at IS NULL AND (m.trait_stage IS NULL OR m.trait_stage <> 'dissolved')) AS live,
                CASE WHEN m.embedding_model = ${model} THEN encode(halfvec_send(m.embedding), 'hex') END AS vector,
                CASE WHEN m.expired_at IS NULL THEN tsvector_to_array(m.content_tsv) END AS lexemes
           FROM memories m
          WHERE m.app_id = ${scope.appId} AND m.user_id = ${scope.userId} AND m.change_seq > ${since}::bigint
          ORDER BY m.change_seq LIMIT ${limit})
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
