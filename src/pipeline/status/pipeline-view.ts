import type { Database } from "../../db/database.js";
import { readXidAges } from "../../db/embedded-freeze.js";
import { type PipelineBacklog, readBacklog, type UserScope } from "../backlog.js";
import { listParked, type ParkedStage } from "../failures.js";

export interface PipelineRuns {
  queued: number;
  running: number;
  failed: number;
  completed: number;
}

export interface PipelineStatusView extends PipelineRuns {
  user_id: string | null;
  app_id: string | null;
  source: "embedded-executor" | "consolidation-jobs";
  backlog: PipelineBacklog;
  /** Stages that failed too often and wait for `POST /v1/pipeline/retry`. */
  parked: ParkedStage[];
  /**
   * The memory reflects the log: nothing queued or running, nothing left to replay, reflect or
   * embed, nothing parked.
   */
  settled: boolean;
  /**
   * Transaction ids since the oldest unfrozen one, of this database and of the oldest on its server:
   * Postgres refuses writes near 2^31. The embedded database is frozen past 150M (`embedded-freeze`);
   * a server's autovacuum does the same.
   */
  database: { xid_age: number; oldest_xid_age: number };
}

/** Where run counts come from: the embedded executor's tables, or our own job records. */
export interface PipelineView {
  status(scope: UserScope): Promise<PipelineStatusView>;
}

/** The backlog and parked stages of a scope, combined with run counts into a status. */
export async function statusWith(
  db: Database,
  scope: UserScope,
  embeddingModel: string,
  source: PipelineStatusView["source"],
  runs: PipelineRuns,
): Promise<PipelineStatusView> {
  const [backlog, parked, ages] = await Promise.all([readBacklog(db, scope, embeddingModel), listParked(db, scope), readXidAges(db)]);
  const pending = backlog.unreplayed_events + backlog.unreflected_events + backlog.unembedded_memories;
  return {
    user_id: scope.userId ?? null,
    app_id: scope.appId ?? null,
    source,
    ...runs,
    backlog,
    parked,
    settled: runs.queued === 0 && runs.running === 0 && pending === 0 && parked.length === 0,
    database: { xid_age: ages.database, oldest_xid_age: ages.oldest },
  };
}
