import { z } from "zod";
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
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";
import { EventSchema, eventJson } from "../json/event.js";
import { ScopedStateSchema, SessionSchema, SessionWithStateSchema, sessionJson } from "../json/session.js";
import { ownedByCaller } from "../middleware/ownership.js";

const SessionPath = z.object({ id: z.string().describe("The session's id") });
const EventPath = SessionPath.extend({ seq: z.string().describe("The event's seq (a positive integer)") });
const tags = ["sessions"];

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

const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create a session",
  request: { body: jsonBody(CreateSessionSchema) },
  responses: { 201: jsonAnswer("The session, with its scoped state", SessionWithStateSchema) },
});

const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "A user's sessions, newest first",
  request: { query: ListSessionsQuerySchema },
  responses: { 200: jsonAnswer("The sessions", z.object({ sessions: z.array(SessionSchema) })) },
});

const read = defineRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "A session with its watermarks and scoped state",
  request: { params: SessionPath },
  responses: { 200: jsonAnswer("The session", SessionWithStateSchema) },
});

const end = defineRoute({
  method: "post",
  path: "/{id}/end",
  tags,
  summary: "End a session (idempotent); flushes replay, starts reflection",
  request: { params: SessionPath },
  responses: { 200: jsonAnswer("The ended session", SessionSchema) },
});

const patch = defineRoute({
  method: "patch",
  path: "/{id}/state",
  tags,
  summary: "Apply session, user and app state deltas (a null value removes the key)",
  request: { params: SessionPath, body: jsonBody(PatchStateSchema) },
  responses: { 200: jsonAnswer("The state after the deltas", z.object({ session_id: z.uuid(), state: ScopedStateSchema })) },
});

const append = defineRoute({
  method: "post",
  path: "/{id}/events",
  tags,
  summary: "Append events: gapless seq, idempotency keys",
  request: { params: SessionPath, body: jsonBody(AppendEventsSchema) },
  responses: {
    201: jsonAnswer(
      "The events' ids and seqs; a re-send answers like the original with `stored: 0`",
      z.object({
        events: z.array(z.object({ id: z.uuid(), seq: z.number().int() })),
        last_seq: z.number().int(),
        /** Events this call stored (0 when every one was an idempotent re-send). */
        stored: z.number().int(),
      }),
    ),
  },
});

const redact = defineRoute({
  method: "post",
  path: "/{id}/events/{seq}/redact",
  tags,
  summary: "Redact one event: its words become a tombstone (seq kept), every memory derived from it is re-derived or retracted",
  request: { params: EventPath, body: jsonBody(RedactEventSchema) },
  responses: {
    200: jsonAnswer(
      "What the redaction changed",
      z.object({
        redaction: z.object({
          event_id: z.uuid(),
          seq: z.number().int(),
          redacted_now: z.boolean(),
          episodes_deleted: z.number().int(),
          memories_retracted: z.number().int(),
          sources_removed: z.number().int(),
          versions_restored: z.number().int(),
          pipeline_runs_deleted: z.number().int(),
          replay_from_seq: z.number().int(),
          relations_removed: z.number().int().describe("Relations of the entity graph stated only in this event"),
          entities_removed: z.number().int().describe("Entities no remaining event names"),
          entities_renamed: z.number().int().describe("Entities that lost names only this event gave them"),
        }),
      }),
    ),
  },
});

const readLog = defineRoute({
  method: "get",
  path: "/{id}/events",
  tags,
  summary: "Read the log in sequence order",
  request: { params: SessionPath, query: ReadEventsQuerySchema },
  responses: {
    200: jsonAnswer(
      "A page of events; `next_after_seq` continues it (null: the end)",
      z.object({
        session_id: z.uuid(),
        last_seq: z.number().int(),
        events: z.array(EventSchema),
        next_after_seq: z.number().int().nullable(),
      }),
    ),
  },
});

const routes = apiRoutes<"db" | "clock" | "tokenizer" | "notifier" | "background" | "redaction" | "replayMaxEvents">();
routes.use("/:id", ownedByCaller("sessions"));
routes.use("/:id/*", ownedByCaller("sessions"));

/** Sessions, their append-only event log and scoped state. */
export const sessionRoutes = routes
  .openapi(create, async (c) => {
    const { db } = c.var.deps;
    const session = await createSession(db, c.req.valid("json"), c.var.deps.clock.now());
    return c.json(sessionJson(session, await readState(db, session)), 201);
  })
  .openapi(list, async (c) => {
    const sessions = await listSessions(c.var.deps.db, c.req.valid("query"));
    return c.json({ sessions: sessions.map((session) => sessionJson(session)) }, 200);
  })
  .openapi(read, async (c) => {
    const { db } = c.var.deps;
    const session = await getSession(db, c.req.valid("param").id);
    return c.json(sessionJson(session, await readState(db, session)), 200);
  })
  .openapi(end, async (c) => {
    const { db, notifier, background } = c.var.deps;
    const { session, endedNow } = await endSession(db, c.req.valid("param").id, c.var.deps.clock.now());
    if (endedNow) {
      const progress = { session_id: session.id, app_id: session.appId, user_id: session.userId, last_seq: session.lastSeq };
      background.run(c, "emit session ended", () => notifier.sessionEnded(progress));
    }
    return c.json(sessionJson(session), 200);
  })
  .openapi(patch, async (c) => {
    const { db } = c.var.deps;
    const session = await getSession(db, c.req.valid("param").id);
    return c.json({ session_id: session.id, state: await patchState(db, session, c.req.valid("json")) }, 200);
  })
  .openapi(append, async (c) => {
    const { db, tokenizer, notifier, background, redaction } = c.var.deps;
    const result = await appendEvents(db, tokenizer, c.req.valid("param").id, c.req.valid("json").events, c.var.deps.clock.now(), {
      redaction,
    });
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
  .openapi(redact, async (c) => {
    const { db, notifier, background, clock, replayMaxEvents } = c.var.deps;
    const path = c.req.valid("param");
    const seq = eventSeq(path.seq);
    const session = await getSession(db, path.id);
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
    return c.json({ redaction }, 200);
  })
  .openapi(readLog, async (c) => {
    const query = c.req.valid("query");
    const { session, events } = await readEvents(c.var.deps.db, c.req.valid("param").id, query);
    const last = events[events.length - 1];
    return c.json(
      {
        session_id: session.id,
        last_seq: session.lastSeq,
        events: events.map(eventJson),
        next_after_seq: last && last.seq < session.lastSeq ? last.seq : null,
      },
      200,
    );
  });
