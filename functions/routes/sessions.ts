import { Hono } from "hono";
import { INTEGER_MAX } from "../../src/db/schema/columns.js";
import { DomainError } from "../../src/errors.js";
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
import { RedactEventSchema, redactEvent } from "../../src/users/redact-event.js";
import type { AppEnv } from "../deps.js";
import { ownedByCaller } from "../middleware/ownership.js";
import { validate } from "../middleware/validate.js";
import { eventJson, sessionJson } from "../serializers.js";

/** A path's event seq: a positive integer, else 400 naming `path.seq`. */
function eventSeq(raw: string): number {
  const seq = Number(raw);
  if (!/^\d{1,10}$/.test(raw) || !Number.isSafeInteger(seq) || seq < 1 || seq > INTEGER_MAX) {
    throw new DomainError("invalid_request", `path.seq: expected a positive integer, received ${JSON.stringify(raw.slice(0, 40))}`, {
      issues: [{ field: "path.seq", message: "expected a positive integer" }],
    });
  }
  return seq;
}

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
  .post("/:id/events/:seq/redact", validate("json", RedactEventSchema), async (c) => {
    const { db, notifier, background, clock, replayMaxEvents } = c.var.deps;
    const seq = eventSeq(c.req.param("seq"));
    const session = await getSession(db, c.req.param("id"));
    const redaction = await redactEvent(
      db,
      { sessionId: session.id, seq, appId: session.appId, userId: session.userId },
      { ...c.req.valid("json"), replayMaxEvents, now: clock.now(), actor: "api" },
    );
    // Fast replay summarises the event's chunk again, from the tombstone; a reflection the redaction
    // cancelled (its run quoted the event and was deleted) is asked for again.
    const progress = { session_id: session.id, app_id: session.appId, user_id: session.userId, last_seq: session.lastSeq };
    background.run(c, "emit replay after redaction", async () => {
      await notifier.eventsAppended(progress);
      if (redaction.pipeline_runs_deleted > 0) await notifier.reflect([progress], "retry");
    });
    return c.json({ redaction });
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
