import { type Context, Hono } from "hono";
import { describeConnectionFailure } from "../../src/db/connection-errors.js";
import { migrationState } from "../../src/db/migration-state.js";
import type { AppEnv } from "../deps.js";

/**
 * `/livez`: the process answers (an orchestrator restarts it when this fails, so it never asks
 * the database: an outage must not restart every replica). `/readyz`: the database answers, its
 * migrations are at head, the pipeline has a driver, and shutdown has not begun; 503 otherwise,
 * so a load balancer stops sending requests. `/healthz` is `/readyz` under its older name.
 */
export const healthRoutes = new Hono<AppEnv>()
  .get("/livez", (c) => c.json({ status: "ok" }))
  .get("/readyz", (c) => readinessReport(c))
  .get("/healthz", (c) => readinessReport(c));

async function readinessReport(c: Context<AppEnv>) {
  const { db, dbKind, embedder, readiness } = c.var.deps;
  const started = performance.now();
  const pipeline = readiness.pipeline();
  const draining = readiness.draining();
  let database: { driver: string; latency_ms?: number; error?: string };
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
  return c.json(
    {
      status: ready ? "ok" : "unavailable",
      database,
      ...(migrations ? { migrations } : {}),
      pipeline,
      draining,
      embedding_model: embedder.model,
    },
    ready ? 200 : 503,
  );
}
