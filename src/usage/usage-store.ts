import { sql } from "drizzle-orm";
import { type Database, type Queryable, queryRows } from "../db/database.js";
import { unlessErased } from "../memory/user-lock.js";
import type { UsageRecord } from "../providers/usage-scope.js";
import { compareCodeUnits } from "../util/compare-code-units.js";

export type { UsageRecord } from "../providers/usage-scope.js";

/**
 * Adds each call to its day's row (an upsert, so concurrent calls from any process add up). A call
 * that finishes after its user was erased is counted for the app, not for the user: the row names
 * the user only under the user lock erasure takes, while the user still has sessions
 * (`unlessErased`) — so no call in flight writes an erased user's id back. Calls of one user are
 * one upsert in one transaction, however many there are.
 */
export async function recordUsage(db: Database, records: UsageRecord[]): Promise<void> {
  const uncounted: UsageRecord[] = [];
  for (const { subject, calls } of byUser(records)) {
    if (subject.userId === "") {
      uncounted.push(...calls);
      continue;
    }
    let counted = false;
    await unlessErased(db, subject, async (tx) => {
      await upsertCalls(tx, calls);
      counted = true;
    });
    if (!counted) uncounted.push(...calls);
  }
  if (uncounted.length > 0)
    await upsertCalls(
      db,
      uncounted.map((call) => ({ ...call, userId: "" })),
    );
}

/** Records grouped by app and user, in the order each pair first appears. */
function byUser(records: UsageRecord[]): { subject: { appId: string; userId: string }; calls: UsageRecord[] }[] {
  const groups = new Map<string, { subject: { appId: string; userId: string }; calls: UsageRecord[] }>();
  for (const record of records) {
    const key = JSON.stringify([record.appId, record.userId]);
    const group = groups.get(key) ?? { subject: { appId: record.appId, userId: record.userId }, calls: [] };
    group.calls.push(record);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * One upsert of `calls`, those of the same row summed first: a statement may not update one row
 * twice (`ON CONFLICT DO UPDATE` refuses), and rows are taken in key order so two flushes never
 * wait on each other in a cycle.
 */
async function upsertCalls(db: Queryable, calls: UsageRecord[]): Promise<void> {
  const rows = new Map<string, UsageRecord & { calls: number }>();
  for (const call of calls) {
    const key = JSON.stringify([call.appId, call.day, call.userId, call.provider, call.model, call.stage]);
    const row = rows.get(key);
    if (row) {
      row.calls += 1;
      row.inputTokens += call.inputTokens;
      row.outputTokens += call.outputTokens;
    } else rows.set(key, { ...call, calls: 1 });
  }
  const values = [...rows]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(
      ([, row]) =>
        sql`(${row.appId}, ${row.userId}, ${row.day}::date, ${row.provider}, ${row.model}, ${row.stage}, ${row.calls}::int, ${row.inputTokens}::int, ${row.outputTokens}::int)`,
    );
  await db.execute(sql`
    INSERT INTO provider_usage (app_id, user_id, day, provider, model, stage, calls, input_tokens, output_tokens)
    VALUES ${sql.join(values, sql`, `)}
    ON CONFLICT (app_id, day, user_id, provider, model, stage) DO UPDATE
       SET calls = provider_usage.calls + excluded.calls,
           input_tokens = provider_usage.input_tokens + excluded.input_tokens,
           output_tokens = provider_usage.output_tokens + excluded.output_tokens,
           updated_at = now()`);
}

export interface UsageRow {
  day: string;
  stage: string;
  provider: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
}

/** An app's usage per day, stage, provider and model over `[from, to]` (days, inclusive), optionally one user's. */
export async function readUsage(db: Database, query: { appId: string; userId?: string; from: string; to: string }): Promise<UsageRow[]> {
  const user = query.userId === undefined ? sql`` : sql`AND user_id = ${query.userId}`;
  const rows = await queryRows<UsageRow>(
    db,
    sql`SELECT day::text AS day, stage, provider, model, sum(calls)::int AS calls, sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens
          FROM provider_usage
         WHERE app_id = ${query.appId} AND day BETWEEN ${query.from}::date AND ${query.to}::date ${user}
         GROUP BY day, stage, provider, model
         ORDER BY day, stage, provider, model`,
  );
  return rows.map((row) => ({
    ...row,
    calls: Number(row.calls),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
  }));
}

/** Input plus output tokens an app spent on `day`, every stage and user. */
export async function tokensSpent(db: Database, appId: string, day: string): Promise<number> {
  const [row] = await queryRows<{ tokens: string | number | null }>(
    db,
    sql`SELECT sum(input_tokens + output_tokens) AS tokens FROM provider_usage WHERE app_id = ${appId} AND day = ${day}::date`,
  );
  return Number(row?.tokens ?? 0);
}

/** The UTC day of a moment, as usage is kept. */
export const usageDay = (at: Date) => at.toISOString().slice(0, 10);
