import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { LiveEvent } from "../../src/live/live-events.js";
import { PipelineProgressReader } from "../../src/live/pipeline-progress.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute } from "../contract/define-route.js";

export const LiveQuerySchema = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  session_id: z.uuid().optional(),
});

const stream = defineRoute({
  method: "get",
  path: "/",
  tags: ["operations"],
  summary: "Live AG-UI events for a user or session (server-sent events)",
  request: { query: LiveQuerySchema },
  responses: {
    200: {
      description:
        "A stream of `event: <type>` / `data: <JSON>` messages: ACTIVITY_SNAPSHOT (consolidation), STATE_DELTA (context budget), CUSTOM memory_hits / decay / subscribed",
      content: { "text/event-stream": { schema: z.string() } },
    },
  },
});

/**
 * Server-sent events for one user (optionally one session): consolidation progress, memory hits
 * and budget use of each context request, decay. Both request-made events and pipeline progress
 * (read from the database) are written every `LIVE_POLL_INTERVAL`.
 */
export const liveRoutes = apiRoutes<"db" | "live" | "readiness">().openapi(stream, (c) => {
  const query = c.req.valid("query");
  const { db, live, readiness } = c.var.deps;
  const scope = { appId: query.app_id, userId: query.user_id, ...(query.session_id ? { sessionId: query.session_id } : {}) };
  return streamSSE(c, async (stream) => {
    let id = 0;
    const write = (event: LiveEvent) => stream.writeSSE({ id: String(++id), event: event.type, data: JSON.stringify(event) });
    // Events other requests publish wait here until this stream's own loop writes them: on Workers
    // a stream may only be written from the request that opened it.
    const published: LiveEvent[] = [];
    const unsubscribe = live.bus.subscribe(scope, (event) => published.push(event));
    const reader = new PipelineProgressReader(db, scope);
    let open = true;
    stream.onAbort(() => {
      open = false;
      unsubscribe();
    });
    await write({
      type: "CUSTOM",
      name: "subscribed",
      value: { user_id: scope.userId, app_id: scope.appId, session_id: scope.sessionId ?? null },
      timestamp: Date.now(),
    });
    // A stop ends the stream (the client reconnects to another replica) instead of holding the drain.
    while (open && !readiness.draining()) {
      await stream.sleep(live.pollMs);
      if (!open) break;
      for (const event of published.splice(0)) await write(event);
      for (const event of await reader.next()) await write(event);
    }
    unsubscribe();
  });
});
