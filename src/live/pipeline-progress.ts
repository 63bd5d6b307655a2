import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import type { LiveEvent, LiveScope } from "./live-events.js";

type JobRow = {
  id: string;
  job_type: string;
  status: string;
  session_id: string | null;
  from_seq: number | null;
  to_seq: number | null;
  progress: unknown;
  result: unknown;
  error: string | null;
  changed_at: string;
};

/**
 * Commit order is not timestamp order (`now()` is a transaction's start), so each read looks back
 * this far and drops what it already reported.
 */
const LOOKBACK_SECONDS = 10;

/**
 * Reads what changed for a user since the last call: consolidation jobs that started or finished,
 * and memories decay forgot. The database is the bus, so this sees the work of any process — the
 * embedded executor, or Inngest Cloud calling another instance.
 */
export class PipelineProgressReader {
  /** How many reported items the reader remembers (for tests of its bound). */
  get remembered(): number {
    return this.reportedJobs.size + this.reportedDecay.size;
  }

  /** The database's time of the last read; before the first, the stream's opening is measured in the process. */
  private since: string | undefined;
  private readonly openedAt = performance.now();
  /**
   * What was reported, with when it changed: a read only looks back LOOKBACK_SECONDS, so older
   * entries can never come again and are dropped — a stream's state stays bounded however long it
   * stays open.
   */
  private readonly reportedJobs = new Map<string, number>();
  private readonly reportedDecay = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly scope: LiveScope,
    private readonly lookbackSeconds = LOOKBACK_SECONDS,
  ) {}

  async next(): Promise<LiveEvent[]> {
    const [clock] = await queryRows<{ now: string }>(this.db, sql`SELECT now()::text AS now`);
    const now = clock?.now as string;
    // The stream reports what happened since it opened (and the lookback before). The first read
    // comes a poll after the opening, not at it, so a stream its client drops at once never reads:
    // thousands of those queued thousands of reads for the pool's connections.
    const since =
      this.since === undefined
        ? sql`${now}::timestamptz - make_interval(secs => ${(performance.now() - this.openedAt) / 1000})`
        : sql`${this.since}::timestamptz`;
    const from = sql`${since} - make_interval(secs => ${this.lookbackSeconds})`;
    const session = this.scope.sessionId ? sql`AND (session_id = ${this.scope.sessionId}::uuid OR session_id IS NULL)` : sql``;
    const jobs = await queryRows<JobRow>(
      this.db,
      // A job's last change is its completion, else its start (consolidation_jobs_changed_idx).
      sql`SELECT id, job_type, status, session_id, from_seq, to_seq, progress, result, error, coalesce(completed_at, started_at)::text AS changed_at
            FROM consolidation_jobs
           WHERE app_id = ${this.scope.appId} AND user_id = ${this.scope.userId} ${session}
             AND coalesce(completed_at, started_at) > ${from}
           ORDER BY changed_at`,
    );
    const decayed = await queryRows<{ id: string; created_at: string }>(
      this.db,
      sql`SELECT id, created_at::text AS created_at FROM memory_history WHERE app_id = ${this.scope.appId} AND user_id = ${this.scope.userId} AND actor = 'decay' AND created_at > ${from}`,
    );
    this.since = now;
    const events: LiveEvent[] = [];
    for (const job of jobs) {
      const key = `${job.id}:${job.status}`;
      if (this.reportedJobs.has(key)) continue;
      this.reportedJobs.set(key, Date.parse(job.changed_at));
      events.push({
        type: "ACTIVITY_SNAPSHOT",
        messageId: job.id,
        activityType: "consolidation",
        content: {
          job_type: job.job_type,
          status: job.status,
          session_id: job.session_id,
          from_seq: job.from_seq,
          to_seq: job.to_seq,
          progress: job.progress,
          result: job.result,
          error: job.error,
        },
        timestamp: Date.parse(job.changed_at),
      });
    }
    const forgotten = decayed.filter((row) => !this.reportedDecay.has(row.id));
    for (const row of forgotten) this.reportedDecay.set(row.id, Date.parse(row.created_at));
    if (forgotten.length > 0) events.push({ type: "CUSTOM", name: "decay", value: { forgotten: forgotten.length }, timestamp: Date.now() });
    // The next read starts at `now − lookback`: nothing that changed before it can come again.
    const horizon = Date.parse(now) - this.lookbackSeconds * 1000;
    for (const reported of [this.reportedJobs, this.reportedDecay])
      for (const [key, at] of reported) if (at <= horizon) reported.delete(key);
    return events;
  }
}
