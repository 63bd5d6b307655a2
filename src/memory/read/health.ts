import { and, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { type RetentionClock, retentionSql } from "../lifecycle/retention.js";
import { current, m, ownedBy } from "../visibility.js";

export interface MemoryHealth {
  total: number;
  by_type: Record<string, number>;
  average_retention: number;
  low_retention: number;
  forgotten_last_7_days: number;
  /** Ten retention buckets: [0, 0.1), [0.1, 0.2), … [0.9, 1]. */
  retention_histogram: number[];
  top_accessed: { id: string; type: string; content: string; access_count: number; retention: number }[];
}

/** One user's memory at a glance: what the dashboard's health panel shows. */
export async function memoryHealth(db: Database, scope: { appId: string; userId: string }, clock: RetentionClock): Promise<MemoryHealth> {
  const { now } = clock;
  const held = and(ownedBy(m, scope), current(m));
  const retention = retentionSql(clock.lambda, sql`${now.toISOString()}::timestamptz`);
  const [summary] = await queryRows<{
    total: number;
    average: number;
    low: number;
    by_type: Record<string, number> | null;
    histogram: number[] | null;
  }>(
    db,
    sql`WITH r AS (SELECT ${m.type}, ${retention} AS retention FROM memories m WHERE ${held})
        SELECT count(*)::int AS total, coalesce(avg(r.retention), 0)::float8 AS average,
               count(*) FILTER (WHERE r.retention < 0.3)::int AS low,
               (SELECT jsonb_object_agg(type, n) FROM (SELECT r.type, count(*)::int AS n FROM r GROUP BY r.type) t) AS by_type,
               (SELECT array_agg(coalesce(b.n, 0) ORDER BY g.bucket) FROM generate_series(0, 9) AS g(bucket)
                  LEFT JOIN (SELECT least(9, floor(r.retention * 10))::int AS bucket, count(*)::int AS n FROM r GROUP BY 1) b ON b.bucket = g.bucket) AS histogram
          FROM r`,
  );
  const [forgotten] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM memory_history WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND actor = 'decay' AND operation = 'DELETE' AND created_at > ${now.toISOString()}::timestamptz - interval '7 days'`,
  );
  const top = await queryRows<MemoryHealth["top_accessed"][number]>(
    db,
    sql`SELECT ${m.id}, ${m.type}, ${m.content}, ${m.accessCount}, ${retention} AS retention FROM memories m WHERE ${held} AND ${m.accessCount} > 0 ORDER BY ${m.accessCount} DESC, ${m.lastAccessedAt} DESC LIMIT 5`,
  );
  return {
    total: Number(summary?.total ?? 0),
    by_type: summary?.by_type ?? {},
    average_retention: Math.round(Number(summary?.average ?? 0) * 1000) / 1000,
    low_retention: Number(summary?.low ?? 0),
    forgotten_last_7_days: Number(forgotten?.n ?? 0),
    retention_histogram: (summary?.histogram ?? []).map(Number),
    top_accessed: top.map((row) => ({ ...row, access_count: Number(row.access_count), retention: Number(row.retention) })),
  };
}
