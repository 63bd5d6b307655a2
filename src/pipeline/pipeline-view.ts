import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { needsEmbedding } from "../memory/embeddings.js";

export interface PipelineBacklog {
  /** Committed events that fast replay has not summarised yet. */
  unreplayed_events: number;
  /** Current memories still waiting for a vector of the configured embedding model. */
  unembedded_memories: number;
}

export interface PipelineRuns {
  queued: number;
  running: number;
  failed: number;
  completed: number;
}

export interface PipelineStatusView extends PipelineRuns {
  user_id: string | null;
  source: "embedded-executor" | "consolidation-jobs";
  backlog: PipelineBacklog;
  /** Nothing queued or running and nothing left to replay or embed. */
  settled: boolean;
}

/** Where run counts come from: the embedded executor's tables, or our own job records. */
export interface PipelineView {
  status(scope: { appId?: string; userId?: string }): Promise<PipelineStatusView>;
}

export async function readBacklog(db: Database, scope: { appId?: string; userId?: string }, embeddingModel: string): Promise<PipelineBacklog> {
  const scoped = (base: SQL) =>
    sql.join(
      [base, ...(scope.userId === undefined ? [] : [sql`user_id = ${scope.userId}`]), ...(scope.appId === undefined ? [] : [sql`app_id = ${scope.appId}`])],
      sql` AND `,
    );
  const [row] = await queryRows<PipelineBacklog>(
    db,
    sql`SELECT
          (SELECT coalesce(sum(last_seq - replayed_seq), 0)::int FROM sessions WHERE ${scoped(sql`TRUE`)}) AS unreplayed_events,
          (SELECT count(*)::int FROM memories WHERE ${scoped(needsEmbedding(embeddingModel))}) AS unembedded_memories`,
  );
  return { unreplayed_events: Number(row?.unreplayed_events ?? 0), unembedded_memories: Number(row?.unembedded_memories ?? 0) };
}

export function settledStatus(userId: string | undefined, source: PipelineStatusView["source"], runs: PipelineRuns, backlog: PipelineBacklog): PipelineStatusView {
  return {
    user_id: userId ?? null,
    source,
    ...runs,
    backlog,
    settled: runs.queued === 0 && runs.running === 0 && backlog.unreplayed_events === 0 && backlog.unembedded_memories === 0,
  };
}
