import { context, propagation, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { recordHttpRequest } from "../../src/telemetry/metrics.js";
import { tracer } from "../../src/telemetry/tracing.js";
import { withLogContext } from "../../src/util/log-context.js";
import type { Logger } from "../../src/util/logger.js";

/** Probes and scrapes arrive every few seconds: their access lines are debug, not info. */
const ROUTINE = new Set(["/livez", "/readyz", "/healthz", "/metrics"]);

/**
 * One server span, one latency observation and one access log line per request, all labelled by
 * the route's pattern (`/v1/sessions/:id/events`), never the path itself: paths carry user ids,
 * and a query string carries what users search for. The request id (`hono/request-id`, which must
 * run before this) is on every log line written while the request is served. An incoming W3C
 * `traceparent` (Inngest Cloud sends one) makes the span a child of the caller's.
 *
 * @example
 * app.use("*", requestId(), observeRequests(logger));
 */
export function observeRequests(logger: Logger): MiddlewareHandler<{ Variables: { requestId: string } }> {
  return (c, next) => {
    const requestId = c.get("requestId");
    const method = c.req.method;
    const started = performance.now();
    const parent = propagation.extract(context.active(), c.req.header());
    return withLogContext({ request_id: requestId }, () =>
      tracer().startActiveSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "http.request.id": requestId } },
        parent,
        async (span) => {
          try {
            await next();
          } finally {
            const route = routePath(c, -1) || "unmatched";
            const status = c.res.status;
            const seconds = (performance.now() - started) / 1000;
            span.updateName(`${method} ${route}`);
            span.setAttributes({ "http.route": route, "http.response.status_code": status });
            if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            recordHttpRequest(seconds, { method, route, status });
            const line = { method, route, status, duration_ms: Math.round(seconds * 100_000) / 100 };
            (ROUTINE.has(route) ? logger.debug : logger.info)("request", line);
          }
        },
      ),
    );
  };
}
