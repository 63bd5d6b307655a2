import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { type PipelineRuns, type PipelineView, statusWith } from "./pipeline-view.js";

/**
 * Pipeline status when Inngest Cloud runs the functions: run counts come from our own
 * consolidation job records (failed = failed in the last 24 hours) and queued counts the sessions
 * whose events are not replayed yet, since Inngest Cloud's queue is not ours to read.
 */
export function jobsPipelineView(db: Database, embeddingModel: string): PipelineView {
  return {
    async status(scope) {
      const filters = [
        ...(scope.userId === undefined ? [] : [sql`user_id = ${scope.userId}`]),
        ...(scope.appId === undefined ? [] : [sql`app_id = ${scope.appId}`]),
      ];
      const where = filters.length > 0 ? sql`AND ${sql.join(filters, sql` AND `)}` : sql``;
      const [counts] = await queryRows<{ queued: number; running: number; failed: number; completed: number }>(
        db,
        sql`SELECT count(*) FILTER (WHERE status = 'running')::int AS running,
                   count(*) FILTER (WHERE status = 'failed' AND started_at > now() - interval '1 day')::int AS failed,
                   count(*) FILTER (WHERE status IN ('completed', 'skipped'))::int AS completed,
                   (SELECT count(*)::int FROM sessions WHERE last_seq > replayed_seq ${where}) AS queued
              FROM consolidation_jobs WHERE TRUE ${where}`,
      );
      const runs: PipelineRuns = {
        queued: Number(counts?.queued ?? 0),
        running: Number(counts?.running ?? 0),
        failed: Number(counts?.failed ?? 0),
        completed: Number(counts?.completed ?? 0),
      };
      return statusWith(db, scope, embeddingModel, "consolidation-jobs", runs);
    },
  };
}
