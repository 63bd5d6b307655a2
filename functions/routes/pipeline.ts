import { and, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { JOB_STATUSES, consolidationJobs } from "../../src/db/schema/index.js";
import { recentRuns } from "../../src/executor/run-store.js";
import { jobJson } from "../serializers.js";
import { z } from "zod";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

export const StatusQuerySchema = z.strictObject({
  user_id: z.string().trim().min(1).max(200).optional(),
  app_id: z.string().trim().min(1).max(200).optional(),
});

export const JobsQuerySchema = z.strictObject({
  user_id: z.string().trim().min(1).max(200),
  app_id: z.string().trim().min(1).max(200).default("default"),
  session_id: z.uuid().optional(),
  status: z.enum(JOB_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** Pipeline progress, so clients and tests can wait until consolidation has settled (C7, V1). */
export const pipelineRoutes = new Hono<AppEnv>()
  .get("/status", validate("query", StatusQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const scope = { ...(query.user_id ? { userId: query.user_id } : {}), ...(query.app_id ? { appId: query.app_id } : {}) };
    return c.json(await c.var.deps.pipeline.status(scope));
  })
  .get("/runs", validate("query", JobsQuerySchema.pick({ user_id: true, limit: true })), async (c) => {
    const query = c.req.valid("query");
    return c.json({ runs: await recentRuns(c.var.deps.db, query.user_id, query.limit) });
  })
  .get("/jobs", validate("query", JobsQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const conditions = [eq(consolidationJobs.appId, query.app_id), eq(consolidationJobs.userId, query.user_id)];
    if (query.session_id) conditions.push(eq(consolidationJobs.sessionId, query.session_id));
    if (query.status) conditions.push(eq(consolidationJobs.status, query.status));
    const rows = await c.var.deps.db.select().from(consolidationJobs).where(and(...conditions)).orderBy(desc(consolidationJobs.startedAt)).limit(query.limit);
    return c.json({ jobs: rows.map(jobJson) });
  });
