import { Hono } from "hono";
import { DomainError } from "../../src/errors.js";
import type { DepsEnv } from "../deps.js";
import { authenticate } from "../middleware/auth.js";

/**
 * `GET /metrics`: every instrument and gauge in Prometheus text format (0.0.4). Where API keys are
 * required it needs the admin key (`Authorization: Bearer <ADMIN_API_KEY>`, which Prometheus sends
 * with `authorization: { credentials: … }`): the pipeline's figures span every app.
 */
export function metricsRoutes(metrics: { text(): Promise<string> }) {
  return new Hono<DepsEnv<"security" | "db">>()
    .use("/metrics", (c, next) => {
      const { security, db } = c.var.deps;
      // Only the admin key opens it (at least 32 characters): not worth a failure budget of its own.
      return authenticate({ required: security.authRequired, resolveKey: (presented) => security.resolveKey(db, presented) })(c, next);
    })
    .get("/metrics", async (c) => {
      // Authenticated but not permitted (an app's own key) is 403, as on /v1/keys; no key at all was 401 above.
      if (c.var.deps.security.authRequired && c.var.principal.kind !== "admin")
        throw new DomainError("forbidden", "/metrics needs the admin key (ADMIN_API_KEY)");
      return c.body(await metrics.text(), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
    });
}
