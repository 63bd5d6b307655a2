import { Hono } from "hono";
import { appendEvents, readEvents } from "../../src/sessions/event-log.js";
import {
  AppendEventsSchema,
  CreateSessionSchema,
  ListSessionsQuerySchema,
  PatchStateSchema,
  ReadEventsQuerySchema,
} from "../../src/sessions/schemas.js";
import { patchState, readState } from "../../src/sessions/scoped-state.js";
import { createSession, endSession, getSession, listSessions } from "../../src/sessions/session-store.js";
import type { AppEnv } from "../deps.js";
import { ownedByCaller } from "../middleware/ownership.js";
import { validate } from "../middleware/validate.js";
import { eventJson, sessionJson } from "../serializers.js";

/** Sessions (E1), their append-only event log (E2) and scoped state (E3). */
export const sessionRoutes = new Hono<AppEnv>()
  .use("/:id", ownedByCaller("sessions"))
  .use("/:id/*", ownedByCaller("sessions"))
  .post("/", validate("json", CreateSessionSchema), async (c) => {
    const { db } = c.var.deps;
    const session = await createSession(db, c.req.valid("json"), c.var.deps.clock.now());
    return c.json(sessionJson(session, await readState(db, session)), 201);
  })
  .get("/", validate("query", ListSessionsQuerySchema), async (c) => {
    const sessions = await listSessions(c.var.deps.db, c.req.valid("query"));
    return c.json({ sessions: sessions.map((session) => sessionJson(session)) });
  })
  .get("/:id", async (c) => {
    const { db } = c.var.deps;
    const session = await getSession(db, c.req.param("id"));
    return c.json(sessionJson(session, await readState(db, session)));
  })
  .post("/:id/end", async (c) => {
    const { db, notifier, background } = c.var.deps;
    const { session, endedNow } = await endSession(db, c.req.param("id"), c.var.deps.clock.now());
    if (endedNow) {
      const progress = { session_id: session.id, app_id: session.appId, user_id: session.userId, last_seq: session.lastSeq };
      background.run(c, "emit session ended", () => notifier.sessionEnded(progress));
    }
    return c.json(sessionJson(session));
  })
  .patch("/:id/state", validate("json", PatchStateSchema), async (c) => {
    const { db } = c.var.deps;
    const session = await getSession(db, c.req.param("id"));
    return c.json({ session_id: session.id, state: await patchState(db, session, c.req.valid("json")) });
  })
  .post("/:id/events", validate("json", AppendEventsSchema), async (c) => {
    const { db, tokenizer, notifier, background, redaction } = c.var.deps;
    const result = await appendEvents(db, tokenizer, c.req.param("id"), c.req.valid("json").events, c.var.deps.clock.now(), { redaction });
    if (result.storedCount > 0) {
      const progress = {
        session_id: result.session.id,
        app_id: result.session.appId,
        user_id: result.session.userId,
        last_seq: result.lastSeq,
      };
      // After the commit and after the response; the sweep re-emits if this is ever lost.
      background.run(c, "emit events appended", () => notifier.eventsAppended(progress));
    }
    // A re-send answers like the original request did: 201 with the original ids, `stored: 0`.
    return c.json({ events: result.events, last_seq: result.lastSeq, stored: result.storedCount }, 201);
  })
  .get("/:id/events", validate("query", ReadEventsQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const { session, events } = await readEvents(c.var.deps.db, c.req.param("id"), query);
    const last = events[events.length - 1];
    return c.json({
      session_id: session.id,
      last_seq: session.lastSeq,
      events: events.map(eventJson),
      next_after_seq: last && last.seq < session.lastSeq ? last.seq : null,
    });
  });
