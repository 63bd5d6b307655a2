import { Hono } from "hono";
import { unauthorized } from "../../src/errors.js";
import type { AppEnv } from "../deps.js";
import { authenticate } from "../middleware/auth.js";

/**
 * `GET /metrics`: every instrument and gauge in Prometheus text format (0.0.4). Where API keys are
 * required it needs the admin key (`Authorization: Bearer <ADMIN_API_KEY>`, which Prometheus sends
 * with `authorization: { credentials: … }`): the pipeline's figures span every app.
 */
export function metricsRoutes(metrics: { text(): Promise<string> }) {
  return new Hono<AppEnv>()
    .use("/metrics", (c, next) => {
      const { security, db } = c.var.deps;
      // Only the admin key opens it (at least 32 characters): not worth a failure budget of its own.
      return authenticate({ required: security.authRequired, resolveKey: (presented) => security.resolveKey(db, presented) })(c, next);
    })
    .get("/metrics", async (c) => {
      if (c.var.deps.security.authRequired && c.var.principal.kind !== "admin") throw unauthorized("/metrics needs the admin key");
      return c.body(await metrics.text(), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
    });
}
