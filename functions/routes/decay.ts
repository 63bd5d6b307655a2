import { z } from "zod";
import { runDecay } from "../../src/memory/lifecycle/decay.js";
import { DecayParametersSchema } from "../../src/memory/lifecycle/retention.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";

export const DecayRunSchema = DecayParametersSchema.extend({
  user_id: ExternalIdSchema.optional(),
  app_id: ExternalIdSchema.optional(),
  /** A dry run reports what would be forgotten and changes nothing. On by default. */
  dry_run: z.boolean().default(true),
});

const DecayReportSchema = z.object({
  dry_run: z.boolean(),
  lambda: z.number(),
  threshold: z.number(),
  min_age_days: z.number(),
  recomputed: z.number().int(),
  /** Memories forgotten (or, in a dry run, that would be). */
  forgotten: z.array(z.object({ id: z.uuid(), type: z.string(), content: z.string(), retention: z.number() })),
  /** Forgotten because their user was over the quota. */
  over_quota: z.array(z.string()),
  /** Trends whose window closed before a second observation, and traits decayed below 0.05. */
  traits_dissolved: z.array(z.string()),
  /** Memories forgotten longer ago than the grace period, now deleted for good. */
  purged: z.number().int(),
});

const run = defineRoute({
  method: "post",
  path: "/run",
  tags: ["operations"],
  summary: "Run a decay pass now (dry run by default)",
  request: { body: jsonBody(DecayRunSchema) },
  responses: { 200: jsonAnswer("What was (or would be) forgotten", DecayReportSchema) },
});

/** Runs a decay pass now, for everyone or one user, dry by default. */
export const decayRoutes = apiRoutes<"db" | "clock">().openapi(run, async (c) => {
  const { user_id, app_id, dry_run, ...parameters } = c.req.valid("json");
  const scope = { ...(user_id ? { userId: user_id } : {}), ...(app_id ? { appId: app_id } : {}) };
  return c.json(await runDecay(c.var.deps.db, scope, parameters, dry_run, c.var.deps.clock.now()), 200);
});
