import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import type { SourceRef } from "../provenance.js";

/** The events a memory came from, and when what it records was first and last said. */
export interface Provenance {
  sources: SourceRef[];
  /** Its earliest source event; null for a memory written without one (through the API). */
  firstStatedAt: Date | null;
  /** Its newest source event: a fact said again later is confirmed then. */
  lastConfirmedAt: Date | null;
}

/** A memory's provenance when it has no sources. */
export const NO_PROVENANCE: Provenance = { sources: [], firstStatedAt: null, lastConfirmedAt: null };

/**
 * The provenance of each memory, in one statement: its sources in log order, and the first and
 * last time one of them was said (the events' `occurred_at`).
 *
 * @example
 * const provenance = await provenanceOf(db, [factId]); // Map { factId => { sources, firstStatedAt, lastConfirmedAt } }
 */
export async function provenanceOf(db: Pick<Database, "execute">, ids: readonly string[]): Promise<Map<string, Provenance>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ memory_id: string; sources: SourceRef[]; first: string | Date | null; last: string | Date | null }>(
    db,
    sql`SELECT s.memory_id,
               json_agg(json_build_object('session_id', s.session_id, 'event_id', s.event_id, 'seq', s.seq) ORDER BY s.seq) AS sources,
               min(e.occurred_at) AS first, max(e.occurred_at) AS last
          FROM memory_sources s LEFT JOIN session_events e ON e.id = s.event_id
         WHERE s.memory_id = ANY(${`{${ids.join(",")}}`}::uuid[])
         GROUP BY s.memory_id`,
  );
  return new Map(
    rows.map((row) => [
      row.memory_id,
      {
        sources: row.sources,
        firstStatedAt: row.first === null ? null : new Date(row.first),
        lastConfirmedAt: row.last === null ? null : new Date(row.last),
      },
    ]),
  );
}
