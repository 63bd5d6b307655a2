import { z } from "zod";
import type { SessionEventRow } from "../../src/sessions/event-log.js";
import { EVENT_ROLES } from "../../src/sessions/schemas.js";
import { Timestamp } from "./timestamp.js";

export const EventSchema = z.object({
  id: z.uuid(),
  session_id: z.uuid(),
  /** Gapless position in the session's log, from 1. */
  seq: z.number().int(),
  type: z.string(),
  role: z.enum(EVENT_ROLES),
  content: z.string(),
  data: z.record(z.string(), z.unknown()).nullable(),
  token_count: z.number().int(),
  idempotency_key: z.string().nullable(),
  occurred_at: Timestamp,
  created_at: Timestamp,
});

export function eventJson(row: SessionEventRow): z.infer<typeof EventSchema> {
  return {
    id: row.id,
    session_id: row.sessionId,
    seq: row.seq,
    type: row.type,
    // Stored only through EventInputSchema, which admits these roles alone.
    role: row.role as (typeof EVENT_ROLES)[number],
    content: row.content,
    data: row.data ?? null,
    token_count: row.tokenCount,
    idempotency_key: row.idempotencyKey,
    occurred_at: row.occurredAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
