import { type SQL, sql } from "drizzle-orm";
import { type Database, type Queryable, queryRows } from "../../db/database.js";
import { queryRowsWithSettings } from "../../db/pool-statements.js";
import { memoriesLockedInIdOrder } from "../row-lock-order.js";
import { lockUser } from "../user-lock.js";
import { createdAtText, formatDecayCursor, memoriesPagesSql, nextDecaySlice, parseDecayCursor } from "./decay-walk.js";
import { type DecayParameters, decayedTraitConfidenceSql, type RetentionClock, resolveParameters, retentionSql } from "./retention.js";

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
  /** Forgotten because their user was over the quota. */
  over_quota: string[];
  /** Trends whose window closed before a second observation, and traits decayed below 0.05. */
  traits_dissolved: string[];
  /** Memories forgotten longer ago than the grace period, now deleted for good. */
  purged: number;
}

/** The clock's reading as a SQL value: decisions use the runtime's clock, never the server's `now()`. */
const at = (now: Date): SQL => sql`${now.toISOString()}::timestamptz`;
/** `days` before `now`; days may be fractional (half a day is a valid grace period), so no integer cast. */
const daysBefore = (now: Date, days: number): SQL => sql`${at(now)} - make_interval(secs => ${days * 86_400}::float8)`;

/** Trends whose window closed unreinforced, and established traits whose confidence decayed away. */
function dissolvable(scope: DecayScope, now: Date): SQL {
  return sql`m.type = 'trait' AND m.expired_at IS NULL AND m.trait_stage <> 'dissolved' AND ${scopeSql(scope)}
             AND ((m.trait_stage = 'trend' AND m.window_end < ${at(now)} AND m.reinforcement_count < 2)
               OR (m.trait_stage <> 'trend' AND ${decayedTraitConfidenceSql(at(now))} < 0.05))`;
}

/** The users (in the scope) holding more than `quota` current memories. */
function usersOverQuota(scope: DecayScope, quota: number): SQL {
  return sql`SELECT m.app_id, m.user_id FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)}
              GROUP BY m.app_id, m.user_id HAVING count(*) > ${quota} ORDER BY m.app_id, m.user_id`;
}

/**
 * The quota is the only hard bound: above it a user's lowest-retention episodes and insights
 * go — covered turns first, then by retention, importance and age.
 */
function overQuota(scope: DecayScope, quota: number, retention: SQL, now: Date): SQL {
  return sql`SELECT r.id FROM (
               SELECT m.id, c.n, row_number() OVER (PARTITION BY m.app_id, m.user_id ORDER BY (${coveredTurn()}) DESC, ${retention}, m.importance, m.valid_at) AS rank
                 FROM memories m
                 JOIN (SELECT app_id, user_id, count(*) AS n FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)}
                        GROUP BY app_id, user_id HAVING count(*) > ${quota}) c ON c.app_id = m.app_id AND c.user_id = m.user_id
                WHERE m.expired_at IS NULL AND m.pinned = false AND m.type IN ('episodic', 'insight') AND m.valid_at <= ${at(now)}
             ) r WHERE r.rank <= r.n - ${quota}`;
}

function purgeable(scope: DecayScope, days: number, now: Date): SQL {
  return sql`m.expired_at < ${daysBefore(now, days)} AND m.superseded_by IS NULL AND ${scopeSql(scope)}`;
}

/**
 * A turn whose words a kept summary holds: a current summary of the user lists the turn's event
 * among its sources and quotes the turn's text whole. Forgetting such a turn loses nothing — the
 * summary still carries the words and, through its sources, the evidence.
 */
function coveredTurn(): SQL {
  return sql`m.type = 'episodic' AND m.subtype = 'turn' AND EXISTS (
               SELECT 1 FROM memory_sources ts
                 JOIN memory_sources ss ON ss.event_id = ts.event_id AND ss.memory_id <> ts.memory_id
                 JOIN memories s ON s.id = ss.memory_id
                WHERE ts.memory_id = m.id AND s.app_id = m.app_id AND s.user_id = m.user_id
                  AND s.subtype = 'summary' AND s.expired_at IS NULL
                  AND strpos(lower(s.content), lower(substr(m.content, strpos(m.content, ': ') + 2))) > 0)`;
}

/**
 * Decay ranks before it destroys. Retention (with the design's λ and presets) orders search and
 * the quota; forgetting is reserved for what something kept still carries: turns below the
 * threshold, older than the minimum age, of low importance, not pinned — and covered by a kept
 * summary (coveredTurn). Everything else stays however old it gets: summaries, insights, facts,
 * traits (which dissolve through their own lifecycle). The log stays the source of truth either way.
 */
function forgettable(scope: DecayScope, threshold: number, minAgeDays: number, retention: SQL, now: Date): SQL {
  return sql.join(
    [
      sql`m.expired_at IS NULL`,
      sql`m.pinned = false`,
      sql`m.importance < 0.5`,
      sql`m.valid_at <= ${at(now)}`,
      sql`m.created_at < ${daysBefore(now, minAgeDays)}`,
      sql`${retention} < ${threshold}::float8`,
      scopeSql(scope),
      coveredTurn(),
    ],
    sql` AND `,
  );
}

/**
 * No JIT compilation for decay's statements: a batch's estimate (the coverage check costed for every
 * row it scans) crosses `jit_above_cost`, and on a real Postgres compiling its expressions cost many times
 * the statement's own work.
 */
const WITHOUT_JIT = { jit: "off" };

/** Opens a decay transaction: no JIT, and the user lock when the scope is one user. */
async function lockScope(tx: Queryable, scope: DecayScope): Promise<void> {
  await tx.execute(sql`SELECT set_config('jit', 'off', true)`);
  if (scope.appId !== undefined && scope.userId !== undefined) await lockUser(tx, scope.appId, scope.userId);
}

function scopeSql(scope: DecayScope): SQL {
  const parts = [sql`TRUE`];
  if (scope.appId) parts.push(sql`m.app_id = ${scope.appId}`);
  if (scope.userId) parts.push(sql`m.user_id = ${scope.userId}`);
  return sql.join(parts, sql` AND `);
}

export const DEFAULT_DECAY_BATCH_SIZE = 1000;

export interface DecayBatch {
  /** Where the next batch starts (`formatDecayCursor`); null when the pass is done. */
  cursor: string | null;
  /** Current memories judged (their retention computed). */
  recomputed: number;
  forgotten: DecayReport["forgotten"];
}

/**
 * One batch of a decay pass, one statement in one short transaction: the next slice of current
 * memories (`nextDecaySlice`: about `batchSize` of them) has its retention computed, and those that
 * qualify are forgotten with a DELETE history row — so a crash loses at most this batch and appends
 * wait at most for it. Nothing else is written: retention is computed wherever it is read, so the
 * pass does not rewrite every row, and a forgotten row changes only `expired_at` and `updated_at`.
 * Re-running a batch is harmless: retention depends only on access count and last access, and a
 * forgotten memory is no longer current.
 */
export async function decayBatch(
  db: Database,
  scope: DecayScope,
  parameters: DecayParameters,
  cursor: string | null,
  now: Date,
  batchSize = DEFAULT_DECAY_BATCH_SIZE,
): Promise<DecayBatch> {
  const { lambda, threshold, minAgeDays } = resolveParameters(parameters);
  const expression = retentionSql(lambda, at(now));
  const qualifies = forgettable(scope, threshold, minAgeDays, expression, now);
  const slice = nextDecaySlice(scope, parseDecayCursor(cursor), batchSize);
  const statement = sql`WITH batch AS MATERIALIZED (
        ${slice.rows(sql`${createdAtText} AS at, (m.expired_at IS NULL AND ${scopeSql(scope)}) AS current, (${qualifies}) AS forget`)}
      ),
      changed AS (
        UPDATE memories AS m SET expired_at = ${at(now)}, updated_at = ${at(now)}
          FROM ${memoriesLockedInIdOrder(sql`m.id IN (SELECT id FROM batch WHERE forget) AND ${qualifies}`)}
         WHERE m.id = locked.id
        RETURNING m.id, m.app_id, m.user_id, ${expression} AS retention, m.type, m.content
      ),
      ${historyOf({
        operation: "DELETE",
        after: { expired: true },
        reason: `retention below ${threshold} (λ ${lambda}), older than ${minAgeDays} days, and a kept summary quotes it`,
        at: now,
      })}
      SELECT (SELECT count(*) FILTER (WHERE current) FROM batch)::int AS judged,
             (SELECT count(*) FROM batch)::int AS scanned,
             (SELECT json_build_object('createdAt', b.at, 'id', b.id) FROM batch b ORDER BY b.created_at, b.id LIMIT 1) AS last_memory,
             (SELECT b.ctid::text FROM batch b ORDER BY b.ctid DESC LIMIT 1) AS last_tid,
             (SELECT coalesce(json_agg(json_build_object('id', c.id, 'type', c.type, 'content', c.content, 'retention', c.retention)), '[]'::json)
                FROM changed c) AS forgotten,
             ${memoriesPagesSql} AS pages`;
  type Judged = {
    judged: number;
    scanned: number;
    last_memory: { createdAt: string; id: string } | null;
    last_tid: string | null;
    forgotten: DecayReport["forgotten"];
    pages: number;
  };
  // A pass for one user is one of that user's writers and takes their lock; any other pass relies
  // on row locks (it only expires episodes) and is one statement, sent with its setting in one round trip.
  const [result] =
    scope.appId !== undefined && scope.userId !== undefined
      ? await db.transaction(async (tx) => {
          await lockScope(tx, scope);
          return queryRows<Judged>(tx, statement);
        })
      : await queryRowsWithSettings<Judged>(db, WITHOUT_JIT, statement);
  const judged = Number(result?.judged ?? 0);
  const reading = {
    scanned: Number(result?.scanned ?? 0),
    lastTid: result?.last_tid ?? null,
    lastMemory: result?.last_memory ?? null,
    tablePages: Number(result?.pages ?? 0),
  };
  return {
    cursor: formatDecayCursor(slice.next(reading)),
    recomputed: judged,
    forgotten: (result?.forgotten ?? []).map((row) => ({ ...row, retention: Number(row.retention) })),
  };
}

export interface DecayFinish {
  over_quota: string[];
  traits_dissolved: string[];
  purged: number;
}

/**
 * The end of a decay pass, after every batch: quota user by user under each user's lock,
 * then trait dissolution and purge.
 */
export async function finishDecay(db: Database, scope: DecayScope, parameters: DecayParameters, now: Date): Promise<DecayFinish> {
  const retention = retentionSql(resolveParameters(parameters).lambda, at(now));
  const overQuotaRows: Changed[] = [];
  if (parameters.quota) {
    const quota = parameters.quota;
    for (const user of await queryRows<{ app_id: string; user_id: string }>(db, usersOverQuota(scope, quota))) {
      const userScope = { appId: user.app_id, userId: user.user_id };
      const forgotten = await db.transaction(async (tx) => {
        await lockScope(tx, userScope);
        return updateWithHistory(
          tx,
          sql`UPDATE memories AS m SET expired_at = ${at(now)}, updated_at = ${at(now)}
                FROM ${memoriesLockedInIdOrder(sql`m.id IN (${overQuota(userScope, quota, retention, now)})`)}
               WHERE m.id = locked.id RETURNING m.id, m.app_id, m.user_id, ${retention} AS retention`,
          { operation: "DELETE", after: { expired: true }, reason: `over the quota of ${quota} memories`, at: now },
        );
      });
      overQuotaRows.push(...forgotten);
    }
  }
  return db.transaction(async (tx) => {
    await lockScope(tx, scope);
    const dissolved = await updateWithHistory(
      tx,
      sql`UPDATE memories AS m SET trait_stage = 'dissolved', version = m.version + 1, updated_at = ${at(now)}
            FROM ${memoriesLockedInIdOrder(dissolvable(scope, now))}
           WHERE m.id = locked.id RETURNING m.id, m.app_id, m.user_id, ${retention} AS retention`,
      {
        operation: "STAGE_CHANGE",
        after: { traitStage: "dissolved" },
        reason: "trend window closed unreinforced, or confidence decayed below 0.05",
        at: now,
      },
    );
    const purged = await queryRows<{ id: string }>(
      tx,
      sql`DELETE FROM memories AS m USING ${memoriesLockedInIdOrder(purgeable(scope, parameters.purge_after_days, now))} WHERE m.id = locked.id RETURNING m.id`,
    );
    return { over_quota: overQuotaRows.map((row) => row.id), traits_dissolved: dissolved.map((row) => row.id), purged: purged.length };
  });
}

/** What a decay pass would do, computed without writing anything. */
export async function previewDecay(db: Database, scope: DecayScope, parameters: DecayParameters, now: Date): Promise<DecayReport> {
  const { lambda, threshold, minAgeDays } = resolveParameters(parameters);
  const expression = retentionSql(lambda, at(now));
  const rows = await queryRows<{ id: string; type: string; content: string; retention: number }>(
    db,
    sql`SELECT m.id, m.type, m.content, ${expression} AS retention FROM memories m WHERE ${forgettable(scope, threshold, minAgeDays, expression, now)}`,
  );
  const [counted] = await queryRows<{ count: number }>(
    db,
    sql`SELECT count(*)::int AS count FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)}`,
  );
  const traits = await queryRows<{ id: string }>(db, sql`SELECT m.id FROM memories m WHERE ${dissolvable(scope, now)}`);
  const quota = parameters.quota ? await queryRows<{ id: string }>(db, overQuota(scope, parameters.quota, expression, now)) : [];
  const [purge] = await queryRows<{ count: number }>(
    db,
    sql`SELECT count(*)::int AS count FROM memories m WHERE ${purgeable(scope, parameters.purge_after_days, now)}`,
  );
  return {
    dry_run: true,
    lambda,
    threshold,
    min_age_days: minAgeDays,
    recomputed: Number(counted?.count ?? 0),
    forgotten: rows.map((row) => ({ ...row, retention: Number(row.retention) })),
    over_quota: quota.map((row) => row.id),
    traits_dissolved: traits.map((row) => row.id),
    purged: Number(purge?.count ?? 0),
  };
}

/**
 * A whole decay pass in this process: every batch, then the finish. The scheduled
 * function runs the same pieces as durable steps instead. A dry run writes nothing.
 */
export async function runDecay(
  db: Database,
  scope: DecayScope,
  parameters: DecayParameters,
  dryRun: boolean,
  now: Date,
  batchSize = DEFAULT_DECAY_BATCH_SIZE,
): Promise<DecayReport> {
  if (dryRun) return previewDecay(db, scope, parameters, now);
  const { lambda, threshold, minAgeDays } = resolveParameters(parameters);
  let cursor: string | null = null;
  let recomputed = 0;
  const forgotten: DecayReport["forgotten"] = [];
  do {
    const batch: DecayBatch = await decayBatch(db, scope, parameters, cursor, now, batchSize);
    recomputed += batch.recomputed;
    forgotten.push(...batch.forgotten);
    cursor = batch.cursor;
  } while (cursor !== null);
  const finish = await finishDecay(db, scope, parameters, now);
  return { dry_run: false, lambda, threshold, min_age_days: minAgeDays, recomputed, forgotten, ...finish };
}

type Changed = { id: string; app_id: string; user_id: string; retention: number };

type HistoryEntry = { operation: "DELETE" | "STAGE_CHANGE"; after: Record<string, unknown>; reason: string; at: Date };

/** `history AS (INSERT …)`: one decay history row per row of the CTE `changed` (id, app_id, user_id, retention). */
function historyOf(history: HistoryEntry): SQL {
  return sql`history AS (
          INSERT INTO memory_history (id, memory_id, app_id, user_id, operation, actor, before, after, reason, created_at)
          SELECT gen_random_uuid(), c.id, c.app_id, c.user_id, ${history.operation}, 'decay', jsonb_build_object('retention', c.retention), ${JSON.stringify(history.after)}::jsonb, ${history.reason}, ${at(history.at)}
            FROM changed c
        )`;
}

/**
 * Runs an `UPDATE … RETURNING m.id, m.app_id, m.user_id, <retention> AS retention[, …]` and
 * writes one decay history row per changed memory in the same statement, so changed rows never
 * travel through JS and back.
 */
async function updateWithHistory<Extra extends Record<string, unknown> = Record<never, never>>(
  tx: Queryable,
  update: SQL,
  history: HistoryEntry,
): Promise<(Changed & Extra)[]> {
  return queryRows<Changed & Extra>(tx, sql`WITH changed AS (${update}), ${historyOf(history)} SELECT * FROM changed`);
}

export interface RetentionStats {
  total: number;
  high: number;
  medium: number;
  low: number;
  average: number;
}

/** Retention distribution of current memories at the clock's now: high ≥ 0.7, low < 0.3, medium between. */
export async function retentionStats(db: Database, scope: DecayScope, clock: RetentionClock): Promise<RetentionStats> {
  const [row] = await queryRows<RetentionStats>(
    db,
    sql`WITH r AS (SELECT ${retentionSql(clock.lambda, at(clock.now))} AS retention
                     FROM memories m WHERE m.expired_at IS NULL AND ${scopeSql(scope)})
        SELECT count(*)::int AS total,
               count(*) FILTER (WHERE r.retention >= 0.7)::int AS high,
               count(*) FILTER (WHERE r.retention >= 0.3 AND r.retention < 0.7)::int AS medium,
               count(*) FILTER (WHERE r.retention < 0.3)::int AS low,
               coalesce(avg(r.retention), 0)::float8 AS average
          FROM r`,
  );
  return {
    total: Number(row?.total ?? 0),
    high: Number(row?.high ?? 0),
    medium: Number(row?.medium ?? 0),
    low: Number(row?.low ?? 0),
    average: Math.round(Number(row?.average ?? 0) * 1000) / 1000,
  };
}
