import { randomUUID } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { type Database, type Executor, queryRows } from "../db/database.js";
import { type DecayParameters, decayedTraitConfidenceSql, resolveParameters, retentionSql } from "./retention.js";

export interface DecayScope {
  appId?: string;
  userId?: string;
}

export interface DecayReport {
  dry_run: boolean;
  lambda: number;
  threshold: number;
  min_age_days: number;
  recomputed: number;
  /** Memories forgotten (or, in a dry run, that would be). */
  forgotten: { id: string; type: string; content: string; retention: number }[];
  /** Forgotten because their user was over the quota (R5). */
  over_quota: string[];
  /** Trends whose window closed before a second observation, and traits decayed below 0.05. */
  traits_dissolved: string[];
  /** Memories forgotten longer ago than the grace period, now deleted for good. */
  purged: number;
}

/** Trends whose window closed unreinforced, and established traits whose confidence decayed away. */
function dissolvable(scope: DecayScope): SQL {
  return sql`m.type = 'trait' AND m.expired_at IS NULL AND m.trait_stage <> 'dissolved' AND ${scopeSql(scope)}
             AND ((m.trait_stage = 'trend' AND m.window_end < now() AND m.reinforcement_count < 2)
               OR (m.trait_stage <> 'trend' AND ${decayedTraitConfidenceSql()} < 0.05))`;
}

/** The lowest-retention episodes and insights of every user above `quota` current memories. */
function overQuota(scope: DecayScope, quota: number): SQL {
  return sql`SELECT r.id FROM (
               SELECT m.id, c.n, row_number() OVER (PARTITION BY m.app_id, m.user_id ORDER BY m.retention, m.importance, m.valid_at) AS rank
                 FROM memories m
                 JOIN (SELECT app_id, user_id, count(*) AS n FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)}
                        GROUP BY app_id, user_id HAVING count(*) > ${quota}) c ON c.app_id = m.app_id AND c.user_id = m.user_id
                WHERE m.expired_at IS NULL AND m.pinned = false AND m.type IN ('episodic', 'insight') AND m.valid_at <= now()
             ) r WHERE r.rank <= r.n - ${quota}`;
}

function purgeable(scope: DecayScope, days: number): SQL {
  return sql`m.expired_at < now() - make_interval(days => ${days}::int) AND m.superseded_by IS NULL AND ${scopeSql(scope)}`;
}

/**
 * Forgetting is deliberately narrow, so decay ranks before it destroys: only episodes (turns and
 * summaries) and insights that are below the threshold, older than the minimum age, of low
 * importance (< 0.5), not pinned, and whose `valid_at` is not in the future. Facts and traits are
 * never forgotten by decay; traits dissolve through their own lifecycle.
 */
function forgettable(scope: DecayScope, threshold: number, minAgeDays: number, retention: SQL = sql`m.retention`): SQL {
  return sql.join(
    [
      sql`m.expired_at IS NULL`,
      sql`m.pinned = false`,
      sql`m.type IN ('episodic', 'insight')`,
      sql`m.importance < 0.5`,
      sql`m.valid_at <= now()`,
      sql`m.created_at < now() - make_interval(days => ${minAgeDays}::int)`,
      sql`${retention} < ${threshold}::float8`,
      scopeSql(scope),
    ],
    sql` AND `,
  );
}

function scopeSql(scope: DecayScope): SQL {
  const parts = [sql`TRUE`];
  if (scope.appId) parts.push(sql`m.app_id = ${scope.appId}`);
  if (scope.userId) parts.push(sql`m.user_id = ${scope.userId}`);
  return sql.join(parts, sql` AND `);
}

/**
 * One decay pass (R1, R3): recompute retention of current memories (idempotent: it depends only
 * on access count and last access), then forget what qualifies — soft delete with a DELETE
 * history row per memory, in one transaction. A dry run computes the same report and writes
 * nothing.
 */
export async function runDecay(db: Database, scope: DecayScope, parameters: DecayParameters, dryRun: boolean): Promise<DecayReport> {
  const { lambda, threshold, minAgeDays } = resolveParameters(parameters);
  const report = { dry_run: dryRun, lambda, threshold, min_age_days: minAgeDays };
  if (dryRun) {
    const expression = retentionSql(lambda);
    const rows = await queryRows<{ id: string; type: string; content: string; retention: number }>(
      db,
      sql`SELECT m.id, m.type, m.content, ${expression} AS retention FROM memories m WHERE ${forgettable(scope, threshold, minAgeDays, expression)}`,
    );
    const [counted] = await queryRows<{ count: number }>(db, sql`SELECT count(*)::int AS count FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)}`);
    const traits = await queryRows<{ id: string }>(db, sql`SELECT m.id FROM memories m WHERE ${dissolvable(scope)}`);
    const quota = parameters.quota ? await queryRows<{ id: string }>(db, overQuota(scope, parameters.quota)) : [];
    const [purge] = await queryRows<{ count: number }>(db, sql`SELECT count(*)::int AS count FROM memories m WHERE ${purgeable(scope, parameters.purge_after_days)}`);
    return {
      ...report,
      recomputed: Number(counted?.count ?? 0),
      forgotten: rows.map((row) => ({ ...row, retention: Number(row.retention) })),
      over_quota: quota.map((row) => row.id),
      traits_dissolved: traits.map((row) => row.id),
      purged: Number(purge?.count ?? 0),
    };
  }
  return db.transaction(async (tx) => {
    const recomputed = await queryRows<{ id: string }>(
      tx,
      sql`UPDATE memories AS m SET retention = ${retentionSql(lambda)} WHERE m.expired_at IS NULL AND ${scopeSql(scope)} RETURNING m.id`,
    );
    const forgotten = await queryRows<Changed & { type: string; content: string }>(
      tx,
      sql`UPDATE memories AS m SET expired_at = now(), updated_at = now()
           WHERE ${forgettable(scope, threshold, minAgeDays)}
          RETURNING m.id, m.app_id, m.user_id, m.type, m.content, m.retention`,
    );
    await recordHistory(tx, forgotten, "DELETE", { expired: true }, `retention below ${threshold} (λ ${lambda}) and older than ${minAgeDays} days`);
    const overQuotaRows = parameters.quota
      ? await queryRows<Changed>(tx, sql`UPDATE memories AS m SET expired_at = now(), updated_at = now() WHERE m.id IN (${overQuota(scope, parameters.quota)}) RETURNING m.id, m.app_id, m.user_id, m.retention`)
      : [];
    await recordHistory(tx, overQuotaRows, "DELETE", { expired: true }, `over the quota of ${parameters.quota} memories`);
    const dissolved = await queryRows<Changed>(
      tx,
      sql`UPDATE memories AS m SET trait_stage = 'dissolved', version = m.version + 1, updated_at = now() WHERE ${dissolvable(scope)} RETURNING m.id, m.app_id, m.user_id, m.retention`,
    );
    await recordHistory(tx, dissolved, "STAGE_CHANGE", { traitStage: "dissolved" }, "trend window closed unreinforced, or confidence decayed below 0.05");
    const purged = await queryRows<{ id: string }>(tx, sql`DELETE FROM memories AS m WHERE ${purgeable(scope, parameters.purge_after_days)} RETURNING m.id`);
    return {
      ...report,
      recomputed: recomputed.length,
      forgotten: forgotten.map((row) => ({ id: row.id, type: row.type, content: row.content, retention: Number(row.retention) })),
      over_quota: overQuotaRows.map((row) => row.id),
      traits_dissolved: dissolved.map((row) => row.id),
      purged: purged.length,
    };
  });
}

type Changed = { id: string; app_id: string; user_id: string; retention: number };

/** One history row per changed memory, written in one statement. */
async function recordHistory(tx: Executor, rows: Changed[], operation: "DELETE" | "STAGE_CHANGE", after: Record<string, unknown>, reason: string): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(
    sql`INSERT INTO memory_history (id, memory_id, app_id, user_id, operation, actor, before, after, reason)
        SELECT (f->>'history_id')::uuid, (f->>'id')::uuid, f->>'app_id', f->>'user_id', ${operation}, 'decay',
               jsonb_build_object('retention', (f->>'retention')::float8), ${JSON.stringify(after)}::jsonb, ${reason}
          FROM jsonb_array_elements(${JSON.stringify(rows.map((row) => ({ ...row, history_id: randomUUID() })))}::jsonb) AS f`,
  );
}

export interface RetentionStats {
  total: number;
  high: number;
  medium: number;
  low: number;
  average: number;
}

/** Retention distribution of current memories (R3): high ≥ 0.7, low < 0.3, medium between. */
export async function retentionStats(db: Database, scope: DecayScope): Promise<RetentionStats> {
  const [row] = await queryRows<RetentionStats>(
    db,
    sql`SELECT count(*)::int AS total,
               count(*) FILTER (WHERE m.retention >= 0.7)::int AS high,
               count(*) FILTER (WHERE m.retention >= 0.3 AND m.retention < 0.7)::int AS medium,
               count(*) FILTER (WHERE m.retention < 0.3)::int AS low,
               coalesce(avg(m.retention), 0)::float8 AS average
          FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)}`,
  );
  return { total: Number(row?.total ?? 0), high: Number(row?.high ?? 0), medium: Number(row?.medium ?? 0), low: Number(row?.low ?? 0), average: Math.round(Number(row?.average ?? 0) * 1000) / 1000 };
}
