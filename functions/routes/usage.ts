import { z } from "zod";
import { readUsage, tokensSpent, usageDay } from "../../src/usage/usage-store.js";
import { whenValid } from "../../src/util/when-valid.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, jsonAnswer } from "../contract/define-route.js";
import type { AppDeps } from "../deps.js";

const Id = ExternalIdSchema;
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
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    path: ["from"],
    message: "from is after to",
    when: whenValid("from", "to"),
  });

/** Where an app stands against its daily token budget (null without one). */
export const BudgetSchema = z.object({
  daily_tokens: z.number().int().nullable(),
  spent_today: z.number().int().nullable(),
  /** Deep reflection waits for tomorrow (UTC): today's tokens are spent. */
  reflection_parked: z.boolean(),
});

/** Where an app stands against its daily token budget (DAILY_TOKEN_BUDGET), as usage and pipeline status report it. */
export async function budgetStatus(
  deps: Pick<AppDeps, "dailyTokenBudget" | "db" | "clock">,
  appId: string,
): Promise<z.infer<typeof BudgetSchema>> {
  const daily = deps.dailyTokenBudget;
  if (daily === 0) return { daily_tokens: null, spent_today: null, reflection_parked: false };
  const spent = await tokensSpent(deps.db, appId, usageDay(deps.clock.now()));
  return { daily_tokens: daily, spent_today: spent, reflection_parked: spent >= daily };
}

const count = z.number().int();

const usage = defineRoute({
  method: "get",
  path: "/",
  tags: ["operations"],
  summary: "Cost metering: LLM and embedding calls and tokens per day, stage, provider and model; the daily budget",
  request: { query: UsageQuerySchema },
  responses: {
    200: jsonAnswer(
      "Totals and one row per day, stage, provider and model",
      z.object({
        app_id: z.string(),
        user_id: z.string().optional(),
        from: z.iso.date(),
        to: z.iso.date(),
        totals: z.object({ calls: count, input_tokens: count, output_tokens: count }),
        days: z.array(
          z.object({
            day: z.iso.date(),
            stage: z.string(),
            provider: z.string(),
            model: z.string(),
            calls: count,
            input_tokens: count,
            output_tokens: count,
          }),
        ),
        budget: BudgetSchema,
      }),
    ),
  },
});

/** Cost metering: LLM and embedding calls with their tokens, per day, stage, provider and model. */
export const usageRoutes = apiRoutes<"db" | "clock" | "dailyTokenBudget">().openapi(usage, async (c) => {
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
  return c.json(
    {
      app_id: query.app_id,
      ...(query.user_id ? { user_id: query.user_id } : {}),
      from,
      to,
      totals,
      days,
      budget: await budgetStatus(c.var.deps, query.app_id),
    },
    200,
  );
});
