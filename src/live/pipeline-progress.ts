import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import type { LiveEvent, LiveScope } from "./live-events.js";

type JobRow = { id: string; job_type: string; status: string; session_id: string | null; from_seq: number | null; to_seq: number | null; progress: unknown; result: unknown; error: string | null; changed_at: string };

/**
 * Commit order is not timestamp order (`now()` is a transaction's start), so each read looks back
 * this far and drops what it already reported.
 */
const LOOKBACK = "10 seconds";

/**
 * Reads what changed for a user since the last call: consolidation jobs that started or finished,
 * and memories decay forgot. The database is the bus, so this sees the work of any process — the
 * embedded executor, or Inngest Cloud calling another instance.
 */
export class PipelineProgressReader {
  private since: string | undefined;
  private readonly reportedJobs = new Set<string>();
  private readonly reportedDecay = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly scope: LiveScope,
  ) {}

  async next(): Promise<LiveEvent[]> {
    const [clock] = await queryRows<{ now: string }>(this.db, sql`SELECT now()::text AS now`);
    const now = clock?.now as string;
    // The first read only sets the clock: the stream reports what happens after it opened.
    if (this.since === undefined) {
      this.since = now;
      return [];
    }
    const from = sql`${this.since}::timestamptz - interval '${sql.raw(LOOKBACK)}'`;
    const session = this.scope.sessionId ? sql`AND (session_id = ${this.scope.sessionId}::uuid OR session_id IS NULL)` : sql``;
    const jobs = await queryRows<JobRow>(
      this.db,
      sql`SELECT id, job_type, status, session_id, from_seq, to_seq, progress, result, error, greatest(started_at, coalesce(completed_at, started_at))::text AS changed_at
            FROM consolidation_jobs
           WHERE app_id = ${this.scope.appId} AND user_id = ${this.scope.userId} ${session}
             AND greatest(started_at, coalesce(completed_at, started_at)) > ${from}
           ORDER BY changed_at`,
    );
    const decayed = await queryRows<{ id: string }>(
      this.db,
      sql`SELECT id FROM memory_history WHERE app_id = ${this.scope.appId} AND user_id = ${this.scope.userId} AND actor = 'decay' AND created_at > ${from}`,
    );
    this.since = now;
    const events: LiveEvent[] = [];
    for (const job of jobs) {
      const key = `${job.id}:${job.status}`;
      if (this.reportedJobs.has(key)) continue;
      this.reportedJobs.add(key);
      events.push({
        type: "ACTIVITY_SNAPSHOT",
        messageId: job.id,
        activityType: "consolidation",
        content: { job_type: job.job_type, status: job.status, session_id: job.session_id, from_seq: job.from_seq, to_seq: job.to_seq, progress: job.progress, result: job.result, error: job.error },
        timestamp: Date.parse(job.changed_at),
      });
    }
    const forgotten = decayed.filter((row) => !this.reportedDecay.has(row.id));
    for (const row of forgotten) this.reportedDecay.add(row.id);
    if (forgotten.length > 0) events.push({ type: "CUSTOM", name: "decay", value: { forgotten: forgotten.length }, timestamp: Date.now() });
    return events;
  }
}
