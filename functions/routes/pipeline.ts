import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { consolidationJobs, JOB_STATUSES, PIPELINE_STAGES } from "../../src/db/schema/index.js";
import { recentRuns } from "../../src/executor/run-store.js";
import { retryStages } from "../../src/pipeline/retry.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";
import { JobSchema, jobJson } from "../json/job.js";
import { RunSchema, runJson } from "../json/run.js";
import { Timestamp } from "../json/timestamp.js";
import { BudgetSchema, budgetStatus } from "./usage.js";

const Id = ExternalIdSchema;

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

const count = z.number().int();
const tags = ["operations"];

const status = defineRoute({
  method: "get",
  path: "/status",
  tags,
  summary: "Queued, running and failed runs, backlog (replay, reflection, embeddings), parked stages, settled",
  request: { query: StatusQuerySchema },
  responses: {
    200: jsonAnswer(
      "Where the pipeline stands for a user (or everyone)",
      z.object({
        queued: count,
        running: count,
        failed: count,
        completed: count,
        user_id: z.string().nullable(),
        app_id: z.string().nullable(),
        source: z.enum(["embedded-executor", "consolidation-jobs"]),
        backlog: z.object({ unreplayed_events: count, unreflected_events: count, unembedded_memories: count }),
        /** Stages that failed too often and wait for `POST /v1/pipeline/retry`. */
        parked: z.array(
          z.object({
            stage: z.enum(PIPELINE_STAGES),
            session_id: z.string().nullable(),
            attempts: count,
            error: z.string(),
            first_failed_at: Timestamp,
            parked_at: Timestamp,
          }),
        ),
        /** The memory reflects the log: nothing queued, running, left to replay, reflect or embed, or parked. */
        settled: z.boolean(),
        /** With a daily token budget only. */
        budget: BudgetSchema.optional(),
      }),
    ),
  },
});

const runs = defineRoute({
  method: "get",
  path: "/runs",
  tags,
  summary: "A user's latest pipeline runs with their steps and errors (embedded executor)",
  request: { query: RunsQuerySchema },
  responses: { 200: jsonAnswer("The runs, newest first", z.object({ runs: z.array(RunSchema) })) },
});

const retry = defineRoute({
  method: "post",
  path: "/retry",
  tags,
  summary: "Retry a user's failed or parked pipeline stages",
  request: { body: jsonBody(RetrySchema) },
  responses: {
    202: jsonAnswer(
      "What was sent to the pipeline again",
      z.object({
        app_id: z.string(),
        user_id: z.string(),
        retried: z.object({ replay: z.array(z.string()), reflection: z.array(z.string()), embedding: z.boolean() }),
      }),
    ),
  },
});

const jobs = defineRoute({
  method: "get",
  path: "/jobs",
  tags,
  summary: "Consolidation jobs with progress and errors",
  request: { query: JobsQuerySchema },
  responses: { 200: jsonAnswer("The jobs, newest first", z.object({ jobs: z.array(JobSchema) })) },
});

/** Pipeline progress, so clients and tests can wait until consolidation has settled, and retries of parked stages. */
export const pipelineRoutes = apiRoutes<"db" | "clock" | "pipeline" | "notifier" | "dailyTokenBudget">()
  .openapi(status, async (c) => {
    const query = c.req.valid("query");
    const scope = { ...(query.user_id ? { userId: query.user_id } : {}), ...(query.app_id ? { appId: query.app_id } : {}) };
    const view = await c.var.deps.pipeline.status(scope);
    // With a daily token budget: whether the app's reflection is parked for the rest of the day.
    return c.json(
      {
        ...view,
        ...(c.var.deps.dailyTokenBudget > 0 ? { budget: await budgetStatus(c.var.deps, query.app_id ?? "default") } : {}),
      },
      200,
    );
  })
  .openapi(runs, async (c) => {
    const query = c.req.valid("query");
    const rows = await recentRuns(c.var.deps.db, { appId: query.app_id, userId: query.user_id }, query.limit);
    return c.json({ runs: rows.map(runJson) }, 200);
  })
  .openapi(jobs, async (c) => {
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
    return c.json({ jobs: rows.map(jobJson) }, 200);
  })
  // Dead letters: clear the failure counts of a user's stages and send them to the pipeline again.
  .openapi(retry, async (c) => {
    const body = c.req.valid("json");
    const retried = await retryStages(c.var.deps.db, c.var.deps.notifier, {
      appId: body.app_id,
      userId: body.user_id,
      ...(body.stage ? { stage: body.stage } : {}),
      ...(body.session_id ? { sessionId: body.session_id } : {}),
    });
    return c.json({ app_id: body.app_id, user_id: body.user_id, retried }, 202);
  });
