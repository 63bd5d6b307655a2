import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type { AppEnv } from "../deps.js";

/** Liveness plus a database round trip, so a broken connection shows as unhealthy. */
export const healthRoutes = new Hono<AppEnv>().get("/healthz", async (c) => {
  const { db, dbKind, embedder } = c.var.deps;
  const started = performance.now();
  try {
    await db.execute(sql`SELECT 1`);
  } catch (error) {
    return c.json({ status: "unhealthy", database: { driver: dbKind, error: String(error) } }, 503);
  }
  return c.json({
    status: "ok",
    database: { driver: dbKind, latency_ms: Math.round((performance.now() - started) * 100) / 100 },
    embedding_model: embedder.model,
  });
});
