import { and, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { consolidationJobs, JOB_STATUSES, PIPELINE_STAGES } from "../../src/db/schema/index.js";
import { recentRuns } from "../../src/executor/run-store.js";
import { retryStages } from "../../src/pipeline/retry.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";
import { jobJson } from "../serializers.js";
import { budgetStatus } from "./usage.js";

const Id = z.string().trim().min(1).max(200);

export const StatusQuerySchema = z.strictObject({
  user_id: Id.optional(),
  app_id: Id.optional(),
});

export const JobsQuerySchema = z.strictObject({
  user_id: Id,
  app_id: Id.default("default"),
  session_id: z.uuid().optional(),
  status: z.enum(JOB_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const RunsQuerySchema = JobsQuerySchema.pick({ user_id: true, app_id: true, limit: true });

export const RetrySchema = z.strictObject({
  user_id: Id,
  app_id: Id.default("default"),
  /** One stage; without it, every failed stage of the user. */
  stage: z.enum(PIPELINE_STAGES).optional(),
  session_id: z.uuid().optional(),
});

/** Pipeline progress, so clients and tests can wait until consolidation has settled (C7, V1), and retries of parked stages. */
export const pipelineRoutes = new Hono<AppEnv>()
  .get("/status", validate("query", StatusQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const scope = { ...(query.user_id ? { userId: query.user_id } : {}), ...(query.app_id ? { appId: query.app_id } : {}) };
    const status = await c.var.deps.pipeline.status(scope);
    // With a daily token budget: whether the app's reflection is parked for the rest of the day.
    return c.json({
      ...status,
      ...(c.var.deps.dailyTokenBudget > 0 ? { budget: await budgetStatus(c.var.deps, query.app_id ?? "default") } : {}),
    });
  })
  .get("/runs", validate("query", RunsQuerySchema), async (c) => {
    const query = c.req.valid("query");
    return c.json({ runs: await recentRuns(c.var.deps.db, { appId: query.app_id, userId: query.user_id }, query.limit) });
  })
  .get("/jobs", validate("query", JobsQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const conditions = [eq(consolidationJobs.appId, query.app_id), eq(consolidationJobs.userId, query.user_id)];
    if (query.session_id) conditions.push(eq(consolidationJobs.sessionId, query.session_id));
    if (query.status) conditions.push(eq(consolidationJobs.status, query.status));
    const rows = await c.var.deps.db
      .select()
      .from(consolidationJobs)
      .where(and(...conditions))
      .orderBy(desc(consolidationJobs.startedAt))
      .limit(query.limit);
    return c.json({ jobs: rows.map(jobJson) });
  })
  // Dead letters: clear the failure counts of a user's stages and send them to the pipeline again.
  .post("/retry", validate("json", RetrySchema), async (c) => {
    const body = c.req.valid("json");
    const retried = await retryStages(c.var.deps.db, c.var.deps.notifier, {
      appId: body.app_id,
      userId: body.user_id,
      ...(body.stage ? { stage: body.stage } : {}),
      ...(body.session_id ? { sessionId: body.session_id } : {}),
    });
    return c.json({ app_id: body.app_id, user_id: body.user_id, retried }, 202);
  });
