import { sql } from "drizzle-orm";
import { z } from "zod";
import { apiRoutes, defineRoute, jsonAnswer } from "../contract/define-route.js";

const Database = z.object({ driver: z.enum(["pglite", "pg", "neon"]) });

const health = defineRoute({
  method: "get",
  path: "/healthz",
  tags: ["operations"],
  summary: "Liveness with a database round trip",
  public: true,
  responses: {
    200: jsonAnswer(
      "The process answers and the database is reachable",
      z.object({ status: z.literal("ok"), database: Database.extend({ latency_ms: z.number() }), embedding_model: z.string() }),
    ),
    503: jsonAnswer("The database is unreachable", z.object({ status: z.literal("unhealthy"), database: Database.extend({ error: z.string() }) })),
  },
});

/** Liveness plus a database round trip, so a broken connection shows as unhealthy. */
export const healthRoutes = apiRoutes().openapi(health, async (c) => {
  const { db, dbKind, embedder } = c.var.deps;
  const started = performance.now();
  try {
    await db.execute(sql`SELECT 1`);
  } catch (error) {
    return c.json({ status: "unhealthy" as const, database: { driver: dbKind, error: String(error) } }, 503);
  }
  return c.json(
    {
      status: "ok" as const,
      database: { driver: dbKind, latency_ms: Math.round((performance.now() - started) * 100) / 100 },
      embedding_model: embedder.model,
    },
    200,
  );
});
