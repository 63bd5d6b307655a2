import { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import { validationHook } from "./contract/define-route.js";
import type { AppDeps, AppEnv } from "./deps.js";
import { accessControl } from "./middleware/access-control.js";
import { allowedHost } from "./middleware/allowed-host.js";
import { limitBody } from "./middleware/body-limit.js";
import { createErrorHandler } from "./middleware/error-handler.js";
import { observeRequests } from "./middleware/observe-requests.js";
import { answerUnrouted } from "./middleware/unrouted.js";
import { usageAfterResponse } from "./middleware/usage-after-response.js";
import { wellFormedUrl } from "./middleware/well-formed-url.js";
import { openApiDocument } from "./openapi.js";
import { adkRoutes } from "./routes/adk.js";
import { contextRoutes } from "./routes/context.js";
import { dashboardRoutes } from "./routes/dashboard.js";
import { decayRoutes } from "./routes/decay.js";
import { docsRoutes } from "./routes/docs.js";
import { entityRoutes } from "./routes/entities.js";
import { healthRoutes } from "./routes/health.js";
import { instructionRoutes } from "./routes/instructions.js";
import { keyRoutes } from "./routes/keys.js";
import { liveRoutes } from "./routes/live.js";
import { mcpRoutes } from "./routes/mcp.js";
import { memoryRoutes } from "./routes/memories.js";
import { metricsRoutes } from "./routes/metrics.js";
import { pipelineRoutes } from "./routes/pipeline.js";
import { sessionRoutes } from "./routes/sessions.js";
import { usageRoutes } from "./routes/usage.js";
import { userRoutes } from "./routes/users.js";
import { webhookRoutes } from "./routes/webhooks.js";

/**
 * The Hono app: the same on Workers and Node. Dependencies arrive ready-made, so this file only
 * wires routes, limits and the single error handler. Every API route is defined with its zod
 * schemas (`contract/define-route.ts`), so `/openapi.json` is generated from what validates.
 *
 * @example
 * const app = createApp(deps);
 * const response = await app.request("/healthz");
 */
export function createApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // A request id (x-request-id in, echoed out) on every log line; a span, a latency and an access line per request.
  app.use("*", requestId(), observeRequests(deps.logger));
  // Against DNS rebinding: every route, the dashboard and health included, answers only its own host names.
  if (deps.security.allowedHosts) app.use("*", allowedHost(deps.security.allowedHosts, ["/v1/mcp"]));
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.use("/v1/*", limitBody(deps.maxBodyBytes));
  app.use("/v1/*", wellFormedUrl());
  app.use("/v1/*", ...accessControl(deps.security, deps));
  app.use("/v1/*", usageAfterResponse(deps));
  // Chained, so the app's type carries every route for the typed client (`client/`).
  const routed = app
    .route("/", healthRoutes)
    .route("/v1/sessions", sessionRoutes)
    .route("/v1/context", contextRoutes)
    .route("/v1/memories", memoryRoutes)
    .route("/v1/entities", entityRoutes)
    .route("/v1/pipeline", pipelineRoutes)
    .route("/v1/instructions", instructionRoutes)
    .route("/v1/users", userRoutes)
    .route("/v1/adk", adkRoutes)
    .route("/v1/decay", decayRoutes)
    .route("/v1/webhooks", webhookRoutes)
    .route("/v1/live", liveRoutes)
    .route("/v1/mcp", mcpRoutes)
    .route("/v1/usage", usageRoutes)
    .route("/v1/keys", keyRoutes);
  app.route("/", docsRoutes(openApiDocument(app)));
  if (deps.dashboard) app.route("/", dashboardRoutes(deps.dashboard));
  if (deps.metrics) app.route("/", metricsRoutes(deps.metrics));
  const { inngestHandler } = deps;
  if (inngestHandler) app.on(["GET", "PUT", "POST"], "/api/inngest", (c) => inngestHandler(c));
  // A path served with other methods is 405 with `Allow`; no route at all is 404.
  app.notFound(answerUnrouted(() => app.routes));
  app.onError(createErrorHandler(deps.log, deps.logger.info));
  return routed;
}

export type App = ReturnType<typeof createApp>;
