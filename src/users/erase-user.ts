import { getTableName, type SQL, sql } from "drizzle-orm";
import { type Database, deletedCount, queryRows } from "../db/database.js";
import {
  consolidationJobs,
  entities,
  entityMentions,
  executorRuns,
  executorSteps,
  graphHistory,
  memories,
  memoryHistory,
  memorySources,
  pipelineFailures,
  providerUsage,
  relationSources,
  relations,
  scopedState,
  sessionEvents,
  sessions,
  traitEvidence,
  webhookDeliveries,
} from "../db/schema/index.js";
import { memoriesLockedInIdOrder } from "../memory/row-lock-order.js";
import { lockUser } from "../memory/user-lock.js";

export interface ErasureReport {
  sessions: number;
  events: number;
  memories: number;
  history: number;
  state: number;
  jobs: number;
  /** Pipeline runs of the user (queued, running or finished) deleted with their memoized steps. */
  pipeline_runs: number;
  /** Memoized steps of other runs (the sweep's) that named the user. */
  pipeline_steps: number;
  webhook_deliveries: number;
  /** Cost-metering rows of the user (per day, provider, model and stage). */
  usage_rows: number;
  failures: number;
  /** Entities of the user's graph, with their mentions. */
  entities: number;
  /** Relations of the user's graph, with their sources. */
  relations: number;
  /** Entries of the graph's history. */
  graph_history: number;
}

/** Whether an erasure deleted any row: an erasure of a user who never existed (or one erased already) changed no file. */
export function erasedAnything(report: ErasureReport): boolean {
  return Object.values(report).some((count) => count > 0);
}

/** Every table `eraseUser` deletes from, directly or by cascade: the relations its scrub rewrites (`db/erasure-scrub.ts`). */
export const ERASED_RELATIONS: readonly string[] = [
  sessions,
  sessionEvents,
  scopedState,
  memories,
  memorySources,
  traitEvidence,
  memoryHistory,
  consolidationJobs,
  pipelineFailures,
  webhookDeliveries,
  providerUsage,
  executorRuns,
  executorSteps,
  entities,
  entityMentions,
  relations,
  relationSources,
  graphHistory,
].map((table) => getTableName(table));

/**
 * Erases everything stored about one user of one app, in one transaction: sessions and their
 * events, session/user state, memories with their vectors, sources and trait evidence, history,
 * the entity graph (entities, mentions, relations, their sources and history),
 * consolidation jobs, dead letters, webhook deliveries, and the embedded executor's runs with
 * their memoized steps (which hold the user's words: loaded backlogs, summaries, extractions) —
 * deleted, not just cancelled, so a run in flight finds its row gone and writes nothing more.
 * The user lock serialises this with every other writer of the user's derived memory.
 */
export async function eraseUser(db: Database, scope: { appId: string; userId: string }): Promise<ErasureReport> {
  return db.transaction(async (tx) => {
    const deleted = (statement: SQL) => deletedCount(tx, statement);
    const user = sql`app_id = ${scope.appId} AND user_id = ${scope.userId}`;
    // The sweep's steps list the sessions and users it re-sent.
    const steps = await deleted(
      sql`DELETE FROM executor_steps WHERE jsonb_path_exists(data, '$[*] ? (@.app_id == $app && @.user_id == $user)', jsonb_build_object('app', ${scope.appId}::text, 'user', ${scope.userId}::text))`,
    );
    await lockUser(tx, scope.appId, scope.userId);
    // Runs under the user lock: enqueueing a run takes the same lock and checks that its user still
    // exists, so no run of the user can appear after this statement (later emits find them gone).
    // Nothing else locks a run row and then waits for the user lock, so the order cannot deadlock.
    const runs = await deleted(sql`DELETE FROM executor_runs WHERE ${user}`);
    const [counted] = await queryRows<{ n: number }>(
      tx,
      sql`SELECT count(*)::int AS n FROM session_events e JOIN sessions s ON s.id = e.session_id WHERE s.app_id = ${scope.appId} AND s.user_id = ${scope.userId}`,
    );
    const state = await deleted(
      sql`DELETE FROM scoped_state WHERE app_id = ${scope.appId} AND ((scope = 'user' AND owner_id = ${scope.userId})
            OR (scope = 'session' AND owner_id IN (SELECT id::text FROM sessions WHERE ${user})))`,
    );
    // In id order, as every writer of several memories locks them (a decay pass over the whole store holds no user lock).
    const memories = await deleted(
      sql`DELETE FROM memories AS m USING ${memoriesLockedInIdOrder(sql`m.app_id = ${scope.appId} AND m.user_id = ${scope.userId}`)} WHERE m.id = locked.id`,
    );
    const history = await deleted(sql`DELETE FROM memory_history WHERE ${user}`);
    // Relations (and their sources) first, then the entities (and their mentions).
    const relations = await deleted(sql`DELETE FROM relations WHERE ${user}`);
    const entities = await deleted(sql`DELETE FROM entities WHERE ${user}`);
    const graphHistory = await deleted(sql`DELETE FROM graph_history WHERE ${user}`);
    const jobs = await deleted(sql`DELETE FROM consolidation_jobs WHERE ${user}`);
    const failures = await deleted(sql`DELETE FROM pipeline_failures WHERE ${user}`);
    const deliveries = await deleted(sql`DELETE FROM webhook_deliveries WHERE ${user}`);
    const usage = await deleted(sql`DELETE FROM provider_usage WHERE ${user}`);
    // Events go with their sessions (ON DELETE CASCADE).
    const sessions = await deleted(sql`DELETE FROM sessions WHERE ${user}`);
    return {
      sessions,
      events: Number(counted?.n ?? 0),
      memories,
      history,
      state,
      jobs,
      pipeline_runs: runs,
      pipeline_steps: steps,
      webhook_deliveries: deliveries,
      usage_rows: usage,
      failures,
      entities,
      relations,
      graph_history: graphHistory,
    };
  });
}
