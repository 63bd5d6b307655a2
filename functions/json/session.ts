import { z } from "zod";
import type { ScopedState } from "../../src/sessions/scoped-state.js";
import type { SessionRow } from "../../src/sessions/session-store.js";
import { Timestamp } from "./timestamp.js";

export const ScopedStateSchema = z.object({
  session: z.record(z.string(), z.unknown()),
  user: z.record(z.string(), z.unknown()),
  app: z.record(z.string(), z.unknown()),
});

export const SessionSchema = z.object({
  id: z.uuid(),
  app_id: z.string(),
  user_id: z.string(),
  agent_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  /** The seq of the newest event. */
  last_seq: z.number().int(),
  /** Fast replay has summarised the log up to here. */
  replayed_seq: z.number().int(),
  /** Deep reflection has extracted facts up to here. */
  reflected_seq: z.number().int(),
  started_at: Timestamp,
  ended_at: Timestamp.nullable(),
  last_event_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** A session read on its own: with its scoped state. */
export const SessionWithStateSchema = SessionSchema.extend({ state: ScopedStateSchema });

/** The public JSON of a session: snake_case, RFC 3339 timestamps; with its state when given. */
export function sessionJson(row: SessionRow): z.infer<typeof SessionSchema>;
export function sessionJson(row: SessionRow, state: ScopedState): z.infer<typeof SessionWithStateSchema>;
export function sessionJson(row: SessionRow, state?: ScopedState) {
  return {
    id: row.id,
    app_id: row.appId,
    user_id: row.userId,
    agent_id: row.agentId,
    metadata: row.metadata,
    last_seq: row.lastSeq,
    replayed_seq: row.replayedSeq,
    reflected_seq: row.reflectedSeq,
    started_at: row.startedAt.toISOString(),
    ended_at: row.endedAt?.toISOString() ?? null,
    last_event_at: row.lastEventAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...(state ? { state } : {}),
  };
}
