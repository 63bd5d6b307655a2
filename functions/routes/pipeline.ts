import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

const StatusQuerySchema = z.strictObject({
  user_id: z.string().trim().min(1).max(200).optional(),
  app_id: z.string().trim().min(1).max(200).optional(),
});

/** Pipeline progress, so clients and tests can wait until consolidation has settled. */
export const pipelineRoutes = new Hono<AppEnv>().get("/status", validate("query", StatusQuerySchema), async (c) => {
  const query = c.req.valid("query");
  const scope = { ...(query.user_id ? { userId: query.user_id } : {}), ...(query.app_id ? { appId: query.app_id } : {}) };
  return c.json(await c.var.deps.pipeline.status(scope));
});
