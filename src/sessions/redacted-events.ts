import { sql } from "drizzle-orm";
import { type Queryable, queryRows } from "../db/database.js";

/**
 * Which of these events are redacted now (their data carries a tombstone), read under the user's
 * lock by the pipeline's writers so that nothing is derived from words already taken back.
 *
 * @example
 * const redacted = await redactedAmong(tx, sources.map((source) => source.eventId));
 */
export async function redactedAmong(tx: Queryable, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`SELECT id FROM session_events WHERE id IN ${[...new Set(eventIds)]} AND coalesce(data, '{}'::jsonb) ? 'tombstone'`,
  );
  return new Set(rows.map((row) => row.id));
}
