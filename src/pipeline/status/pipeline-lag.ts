import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";

/** How far the pipeline is behind, in seconds: 0 when nothing waits. */
export interface PipelineLag {
  /** Age of the oldest event not yet summarised. */
  replaySeconds: number;
  /** Age of the oldest current memory without a vector. */
  embeddingSeconds: number;
}

/**
 * The pipeline's lag, read from the database (the same on every replica): the oldest event past
 * its session's replay watermark, and the oldest memory still waiting for its embedding.
 *
 * @example
 * const { replaySeconds } = await pipelineLag(db);
 */
export async function pipelineLag(db: Pick<Database, "execute">): Promise<PipelineLag> {
  const [replay] = await queryRows<{ seconds: string | number | null }>(
    db,
    sql`SELECT extract(epoch FROM now() - min(e.created_at)) AS seconds
          FROM sessions s JOIN session_events e ON e.session_id = s.id AND e.seq = s.replayed_seq + 1
         WHERE s.replayed_seq < s.last_seq`,
  );
  const [embedding] = await queryRows<{ seconds: string | number | null }>(
    db,
    sql`SELECT extract(epoch FROM now() - min(created_at)) AS seconds FROM memories WHERE embedding IS NULL AND expired_at IS NULL`,
  );
  return {
    replaySeconds: Math.max(0, Number(replay?.seconds ?? 0)),
    embeddingSeconds: Math.max(0, Number(embedding?.seconds ?? 0)),
  };
}
