import { Hono } from "hono";
import { z } from "zod";
import { runDecay } from "../../src/memory/lifecycle/decay.js";
import { DecayParametersSchema } from "../../src/memory/lifecycle/retention.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

export const DecayRunSchema = DecayParametersSchema.extend({
  user_id: z.string().trim().min(1).max(200).optional(),
  app_id: z.string().trim().min(1).max(200).optional(),
  /** A dry run reports what would be forgotten and changes nothing. On by default. */
  dry_run: z.boolean().default(true),
});

/** Runs a decay pass now, for everyone or one user, dry by default (R3). */
export const decayRoutes = new Hono<AppEnv>().post("/run", validate("json", DecayRunSchema), async (c) => {
  const { user_id, app_id, dry_run, ...parameters } = c.req.valid("json");
  const scope = { ...(user_id ? { userId: user_id } : {}), ...(app_id ? { appId: app_id } : {}) };
  return c.json(await runDecay(c.var.deps.db, scope, parameters, dry_run, c.var.deps.clock.now()));
});
