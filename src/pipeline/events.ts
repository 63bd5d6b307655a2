import { eventType } from "inngest";
import { z } from "zod";

/**
 * The pipeline's events, defined here (below the durable functions that run on them and beside
 * the notifier that sends them) so that no import runs back up. Each carries its payload schema:
 * the Inngest SDK validates a run's event against its trigger's schema before the function body
 * runs (a bad payload fails the run for good), so the bodies read `event.data` as typed.
 */

const UserScope = { app_id: z.string().min(1), user_id: z.string().min(1) };

/** Emitted after events are committed to a session's log; fast replay is debounced on it. */
export const sessionEventsAppended = eventType("memory/session.events-appended", {
  schema: z.object({ ...UserScope, session_id: z.uuid(), last_seq: z.number().int().min(0) }),
});

/** Emitted once when a session ends; flushes its fast replay (and, later, deep reflection). */
export const sessionEnded = eventType("memory/session.ended", {
  schema: z.object({ ...UserScope, session_id: z.uuid(), last_seq: z.number().int().min(0) }),
});

/** Asks for deep reflection of a session: importance crossed the threshold, or a rebuild. */
export const reflectionRequested = eventType("memory/reflection.requested", {
  schema: z.object({
    ...UserScope,
    session_id: z.uuid(),
    reason: z.enum(["importance", "rebuild", "manual", "webhook", "sweep", "retry"]),
  }),
});

/** Asks the backfill to embed a user's memories that were written without a vector. */
export const embeddingsRequested = eventType("memory/embeddings.requested", { schema: z.object(UserScope) });

/** Runs (or continues, from `cursor`) a decay pass outside its schedule, for everyone or one scope. */
export const decayRequested = eventType("memory/decay.requested", {
  schema: z.object({ app_id: z.string().min(1).optional(), user_id: z.string().min(1).optional(), cursor: z.string().min(1).nullable() }),
});
