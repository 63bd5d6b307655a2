import type { Context } from "hono";
import { z } from "zod";
import { describeConnectionFailure } from "../../src/db/connection-errors.js";
import { migrationState } from "../../src/db/migration-state.js";
import { apiRoutes, defineRoute, jsonAnswer } from "../contract/define-route.js";
import type { DepsEnv } from "../deps.js";

const DatabaseSchema = z.object({
  driver: z.enum(["pglite", "pg", "neon"]),
  latency_ms: z.number().optional(),
  /** Why the database did not answer (host and cause; never a password or a statement's values). */
  error: z.string().optional(),
});

const ReadinessSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  database: DatabaseSchema,
  /** Migrations recorded in the database against those this build ships. */
  migrations: z.object({ applied: z.number().int(), expected: z.number().int() }).optional(),
  pipeline: z.object({ driver: z.string(), ready: z.boolean() }),
  /** Shutdown has begun: the process finishes what it holds and takes nothing new. */
  draining: z.boolean(),
  embedding_model: z.string(),
});

const live = defineRoute({
  method: "get",
  path: "/livez",
  tags: ["operations"],
  summary: "Liveness: the process answers (never asks the database)",
  public: true,
  responses: { 200: jsonAnswer("The process answers", z.object({ status: z.literal("ok") })) },
});

function readinessRoute(path: "/readyz" | "/healthz", summary: string) {
  return defineRoute({
    method: "get",
    path,
    tags: ["operations"],
    summary,
    public: true,
    responses: {
      200: jsonAnswer("Ready: database reachable, migrations at head, pipeline driven, not draining", ReadinessSchema),
      503: jsonAnswer("Not ready: the report says which condition fails", ReadinessSchema),
    },
  });
}

/**
 * `/livez`: the process answers (an orchestrator restarts it when this fails, so it never asks
 * the database: an outage must not restart every replica). `/readyz`: the database answers, its
 * migrations are at head, the pipeline has a driver, and shutdown has not begun; 503 otherwise,
 * so a load balancer stops sending requests (once shutdown has begun, at once, without asking the
 * database). `/healthz` is `/readyz` under its older name.
 */
/** What readiness reads: the database and its driver, the model the vectors are for, draining and the pipeline's driver. */
type ReadinessNeeds = "db" | "dbKind" | "embedder" | "readiness";

export const healthRoutes = apiRoutes<ReadinessNeeds>()
  .openapi(live, (c) => c.json({ status: "ok" as const }, 200))
  .openapi(readinessRoute("/readyz", "Readiness: database, migrations, pipeline driver, not draining"), (c) => readinessReport(c))
  .openapi(readinessRoute("/healthz", "Readiness under its older name (an alias of /readyz)"), (c) => readinessReport(c));

async function readinessReport(c: Context<DepsEnv<ReadinessNeeds>>) {
  const { db, dbKind, embedder, readiness } = c.var.deps;
  const started = performance.now();
  const pipeline = readiness.pipeline();
  const draining = readiness.draining();
  // A stopping process is not ready whatever its database says: answered at once, without a
  // statement queued behind the load a balancer is about to take away.
  if (draining)
    return c.json(
      { status: "unavailable" as const, database: { driver: dbKind }, pipeline, draining, embedding_model: embedder.model },
      503,
    );
  let database: z.infer<typeof DatabaseSchema>;
  let migrations: { applied: number; expected: number } | undefined;
  let atHead = false;
  try {
    // One round trip: reading the migration record also proves the database answers.
    const state = await migrationState(db);
    database = { driver: dbKind, latency_ms: Math.round((performance.now() - started) * 100) / 100 };
    migrations = { applied: state.applied, expected: state.expected };
    atHead = state.atHead;
  } catch (error) {
    database = { driver: dbKind, error: describeConnectionFailure(error) };
  }
  const ready = database.error === undefined && atHead && pipeline.ready && !draining;
  const report = {
    status: ready ? ("ok" as const) : ("unavailable" as const),
    database,
    ...(migrations ? { migrations } : {}),
    pipeline,
    draining,
    embedding_model: embedder.model,
  };
  return ready ? c.json(report, 200) : c.json(report, 503);
}
