import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { cancelUserRuns } from "../executor/run-store.js";
import { lockUser } from "../memory/memory-writes.js";

export interface ErasureReport {
  sessions: number;
  events: number;
  memories: number;
  history: number;
  state: number;
  jobs: number;
  cancelled_runs: number;
}

/**
 * Erases everything stored about one user of one app, in one transaction: sessions and their
 * events, session/user state, memories with their vectors, sources and trait evidence, history,
 * consolidation jobs; queued or running pipeline runs for the user are cancelled first, so none
 * writes again afterwards. The user lock serialises this with consolidation in flight.
 */
export async function eraseUser(db: Database, scope: { appId: string; userId: string }): Promise<ErasureReport> {
  return db.transaction(async (tx) => {
    const cancelled = await cancelUserRuns(tx, scope);
    await lockUser(tx, scope.appId, scope.userId);
    const count = async (statement: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(tx, statement))[0]?.n ?? 0;
    const events = await count(sql`SELECT count(*)::int AS n FROM session_events e JOIN sessions s ON s.id = e.session_id WHERE s.app_id = ${scope.appId} AND s.user_id = ${scope.userId}`);
    const state = await count(sql`WITH gone AS (
        DELETE FROM scoped_state WHERE app_id = ${scope.appId} AND ((scope = 'user' AND owner_id = ${scope.userId})
          OR (scope = 'session' AND owner_id IN (SELECT id::text FROM sessions WHERE app_id = ${scope.appId} AND user_id = ${scope.userId})))
        RETURNING 1) SELECT count(*)::int AS n FROM gone`);
    const memories = await count(sql`WITH gone AS (DELETE FROM memories WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
    const history = await count(sql`WITH gone AS (DELETE FROM memory_history WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
    const jobs = await count(sql`WITH gone AS (DELETE FROM consolidation_jobs WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
    await tx.execute(sql`DELETE FROM pipeline_failures WHERE app_id = ${scope.appId} AND user_id = ${scope.userId}`);
    // Events go with their sessions (ON DELETE CASCADE).
    const sessions = await count(sql`WITH gone AS (DELETE FROM sessions WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} RETURNING 1) SELECT count(*)::int AS n FROM gone`);
    return { sessions, events: Number(events), memories: Number(memories), history: Number(history), state: Number(state), jobs: Number(jobs), cancelled_runs: cancelled };
  });
}
