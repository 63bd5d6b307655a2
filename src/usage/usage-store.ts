import { sql } from "drizzle-orm";
import { type Database, type Queryable, queryRows } from "../db/database.js";
import { unlessErased } from "../memory/user-lock.js";

export interface UsageRecord {
  appId: string;
  userId: string;
  day: string;
  provider: string;
  model: string;
  stage: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Adds one call to its day's row (an upsert, so concurrent calls from any process add up). A call
 * that finishes after its user was erased is counted for the app, not for the user: the row names
 * the user only under the user lock erasure takes, while the user still has sessions
 * (`unlessErased`) — so no call in flight writes an erased user's id back.
 */
export async function recordUsage(db: Database, record: UsageRecord): Promise<void> {
  const upsert = (tx: Queryable, userId: string) =>
    tx.execute(sql`
      INSERT INTO provider_usage (app_id, user_id, day, provider, model, stage, calls, input_tokens, output_tokens)
      VALUES (${record.appId}, ${userId}, ${record.day}::date, ${record.provider}, ${record.model}, ${record.stage}, 1, ${record.inputTokens}, ${record.outputTokens})
      ON CONFLICT (app_id, day, user_id, provider, model, stage) DO UPDATE
         SET calls = provider_usage.calls + 1,
             input_tokens = provider_usage.input_tokens + excluded.input_tokens,
             output_tokens = provider_usage.output_tokens + excluded.output_tokens,
             updated_at = now()`);
  let counted = false;
  if (record.userId !== "") {
    await unlessErased(db, { appId: record.appId, userId: record.userId }, async (tx) => {
      await upsert(tx, record.userId);
      counted = true;
    });
  }
  if (!counted) await upsert(db, "");
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
