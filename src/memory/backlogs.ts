import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { needsEmbedding } from "./embeddings.js";

export interface SessionBacklog {
  session_id: string;
  app_id: string;
  user_id: string;
  last_seq: number;
}

/**
 * Sessions with committed events that fast replay has not covered and that have been quiet for
 * `minAgeMs`: either their emit was lost or their run failed. The sweep re-emits for them, which
 * is what guarantees that every committed event reaches the pipeline.
 */
export async function findStaleBacklogs(db: Database, minAgeMs: number, limit: number): Promise<SessionBacklog[]> {
  return queryRows<SessionBacklog>(
    db,
    sql`SELECT id AS session_id, app_id, user_id, last_seq FROM sessions
         WHERE last_seq > replayed_seq AND last_event_at < now() - make_interval(secs => ${minAgeMs / 1000})
         ORDER BY last_event_at LIMIT ${limit}`,
  );
}

/** Users that have current memories needing a vector from `model`. */
export async function findUsersWithUnembedded(db: Database, model: string, limit: number): Promise<{ app_id: string; user_id: string }[]> {
  return queryRows<{ app_id: string; user_id: string }>(db, sql`SELECT DISTINCT app_id, user_id FROM memories WHERE ${needsEmbedding(model)} LIMIT ${limit}`);
}
