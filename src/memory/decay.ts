import { randomUUID } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { type DecayParameters, resolveParameters, retentionSql } from "./retention.js";

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
    return { ...report, recomputed: Number(counted?.count ?? 0), forgotten: rows.map((row) => ({ ...row, retention: Number(row.retention) })) };
  }
  return db.transaction(async (tx) => {
    const recomputed = await queryRows<{ id: string }>(
      tx,
      sql`UPDATE memories AS m SET retention = ${retentionSql(lambda)} WHERE m.expired_at IS NULL AND ${scopeSql(scope)} RETURNING m.id`,
    );
    const forgotten = await queryRows<{ id: string; app_id: string; user_id: string; type: string; content: string; retention: number }>(
      tx,
      sql`UPDATE memories AS m SET expired_at = now(), updated_at = now()
           WHERE ${forgettable(scope, threshold, minAgeDays)}
          RETURNING m.id, m.app_id, m.user_id, m.type, m.content, m.retention`,
    );
    if (forgotten.length > 0) {
      await tx.execute(
        sql`INSERT INTO memory_history (id, memory_id, app_id, user_id, operation, actor, before, after, reason)
            SELECT (f->>'history_id')::uuid, (f->>'id')::uuid, f->>'app_id', f->>'user_id', 'DELETE', 'decay',
                   jsonb_build_object('retention', (f->>'retention')::float8), jsonb_build_object('expired', true),
                   ${`retention below ${threshold} (λ ${lambda}) and older than ${minAgeDays} days`}
              FROM jsonb_array_elements(${JSON.stringify(forgotten.map((row) => ({ ...row, history_id: randomUUID() })))}::jsonb) AS f`,
      );
    }
    return { ...report, recomputed: recomputed.length, forgotten: forgotten.map((row) => ({ id: row.id, type: row.type, content: row.content, retention: Number(row.retention) })) };
  });
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
