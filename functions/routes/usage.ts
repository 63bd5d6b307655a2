import { Hono } from "hono";
import { z } from "zod";
import { readUsage, tokensSpent, usageDay } from "../../src/usage/usage-store.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

const Id = z.string().trim().min(1).max(200);
const DAY_MS = 86_400_000;

export const UsageQuerySchema = z
  .strictObject({
    app_id: Id.default("default"),
    /** One user's calls only; without it, the whole app's. */
    user_id: Id.optional(),
    /** First UTC day (inclusive); default 29 days before `to`. */
    from: z.iso.date().optional(),
    /** Last UTC day (inclusive); default today. */
    to: z.iso.date().optional(),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, { path: ["from"], message: "from is after to" });

/** Where an app stands against its daily token budget (DAILY_TOKEN_BUDGET), as usage and pipeline status report it. */
export async function budgetStatus(deps: AppEnv["Variables"]["deps"], appId: string) {
  const daily = deps.dailyTokenBudget;
  if (daily === 0) return { daily_tokens: null, spent_today: null, reflection_parked: false };
  const spent = await tokensSpent(deps.db, appId, usageDay(deps.clock.now()));
  return { daily_tokens: daily, spent_today: spent, reflection_parked: spent >= daily };
}

/** Cost metering: LLM and embedding calls with their tokens, per day, stage, provider and model. */
export const usageRoutes = new Hono<AppEnv>().get("/", validate("query", UsageQuerySchema), async (c) => {
  const query = c.req.valid("query");
  const to = query.to ?? usageDay(c.var.deps.clock.now());
  const from = query.from ?? usageDay(new Date(Date.parse(to) - 29 * DAY_MS));
  const days = await readUsage(c.var.deps.db, { appId: query.app_id, from, to, ...(query.user_id ? { userId: query.user_id } : {}) });
  const totals = { calls: 0, input_tokens: 0, output_tokens: 0 };
  for (const day of days) {
    totals.calls += day.calls;
    totals.input_tokens += day.input_tokens;
    totals.output_tokens += day.output_tokens;
  }
  return c.json({
    app_id: query.app_id,
    ...(query.user_id ? { user_id: query.user_id } : {}),
    from,
    to,
    totals,
    days,
    budget: await budgetStatus(c.var.deps, query.app_id),
  });
});
