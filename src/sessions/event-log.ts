import { randomUUID } from "node:crypto";
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { sessionEvents } from "../db/schema/index.js";
import { conflict } from "../errors.js";
import { ruleImportance } from "../memory/write/importance.js";
import { NO_REDACTION } from "../redaction/policy.js";
import { type RedactionCounts, type RedactionPolicy, redactJson, redactText } from "../redaction/redact.js";
import { canonicalJson, sha256Hex } from "../util/hash.js";
import type { EventInput, ReadEventsQuery } from "./schemas.js";
import { assertSessionId, getSession, type SessionRow } from "./session-store.js";

/** What the log needs of a tokenizer: each event's token count, stored with it (the service's o200k tokenizer). */
export interface TokenCounter {
  count(text: string): number;
}

export type SessionEventRow = typeof sessionEvents.$inferSelect;

export interface AppendedEvent {
  id: string;
  seq: number;
}

export interface AppendResult {
  session: Pick<SessionRow, "id" | "appId" | "userId">;
  events: AppendedEvent[];
  /** Events this call stored; zero when every event was an idempotent re-send. */
  storedCount: number;
  lastSeq: number;
}

interface PreparedEvent {
  id: string;
  /** Position in the request, for error messages. */
  index: number;
  /** Position among the events this call stores; `seq = base + ord`. */
  ord: number;
  type: string;
  role: string;
  content: string;
  data: Record<string, unknown> | null;
  token_count: number;
  importance: number;
  idempotency_key: string | null;
  request_hash: string | null;
  occurred_at: string | null;
}

const UNIQUE_VIOLATION = "23505";

/**
 * Appends events to a session's log and returns their ids and sequence numbers in request
 * order. One SQL statement bumps `sessions.last_seq` (a row lock that serialises concurrent
 * appends to the same session) and inserts the events at `base + 1 … base + n`, so sequences stay
 * gapless and a failed call stores nothing (see drizzle/0002_append_events_function.sql). Idempotency keys already in the log return their
 * original ids; the same key with different content is a conflict.
 */
export async function appendEvents(
  db: Database,
  tokenizer: TokenCounter,
  sessionId: string,
  inputs: EventInput[],
  now: Date,
  options: { redaction?: RedactionPolicy } = {},
): Promise<AppendResult> {
  assertSessionId(sessionId);
  const redaction = options.redaction ?? NO_REDACTION;
  const prepared = inputs.map((input, index) => prepareEvent(redactEvent(input, redaction), index, tokenizer, now));
  try {
    return await appendPrepared(db, sessionId, prepared);
  } catch (error) {
    // A concurrent request stored the same idempotency key between our look-up and our insert;
    // the statement rolled back whole, and the second look-up now finds the winner's events.
    if (errorCode(error) === UNIQUE_VIOLATION) return appendPrepared(db, sessionId, prepared);
    throw error;
  }
}

async function appendPrepared(db: Database, sessionId: string, prepared: PreparedEvent[]): Promise<AppendResult> {
  const existing = await findByIdempotencyKeys(db, sessionId, prepared);
  const fresh = prepared.filter((event) => !event.idempotency_key || !existing.has(event.idempotency_key));
  for (const [index, event] of fresh.entries()) event.ord = index + 1;

  if (fresh.length === 0) {
    const session = await getSession(db, sessionId);
    const events = prepared.map((event) => existing.get(event.idempotency_key as string) as AppendedEvent);
    return { session, events, storedCount: 0, lastSeq: session.lastSeq };
  }

  // The statement lives in migration 0002 (append_session_events): one UPDATE reserving the
  // sequence range under the session's row lock, one INSERT at those numbers.
  const rows = await queryRows<{ id: string; seq: number; app_id: string; user_id: string; last_seq: number }>(
    db,
    sql`SELECT id, seq, app_id, user_id, last_seq FROM append_session_events(${sessionId}, ${JSON.stringify(fresh)}::jsonb)`,
  );

  if (rows.length === 0) {
    const session = await getSession(db, sessionId); // throws 404 for an unknown session
    throw conflict(`session ${session.id} has ended; it accepts no more events`, { session_id: session.id });
  }

  const first = rows[0] as (typeof rows)[number];
  const stored = new Map(rows.map((row) => [row.id, { id: row.id, seq: Number(row.seq) }]));
  const events = prepared.map((event) =>
    event.idempotency_key && existing.has(event.idempotency_key)
      ? (existing.get(event.idempotency_key) as AppendedEvent)
      : (stored.get(event.id) as AppendedEvent),
  );
  return {
    session: { id: sessionId, appId: first.app_id, userId: first.user_id },
    events,
    storedCount: rows.length,
    lastSeq: Number(first.last_seq),
  };
}

async function findByIdempotencyKeys(db: Database, sessionId: string, prepared: PreparedEvent[]): Promise<Map<string, AppendedEvent>> {
  const keyed = prepared.filter((event) => event.idempotency_key);
  if (keyed.length === 0) return new Map();
  const rows = await db
    .select({ id: sessionEvents.id, seq: sessionEvents.seq, key: sessionEvents.idempotencyKey, hash: sessionEvents.requestHash })
    .from(sessionEvents)
    .where(
      and(
        eq(sessionEvents.sessionId, sessionId),
        inArray(
          sessionEvents.idempotencyKey,
          keyed.map((event) => event.idempotency_key as string),
        ),
      ),
    );
  const found = new Map<string, AppendedEvent>();
  for (const row of rows) {
    const sent = keyed.find((event) => event.idempotency_key === row.key) as PreparedEvent;
    if (sent.request_hash !== row.hash) {
      throw conflict(`idempotency_key ${row.key} was already used with different content`, {
        field: `events[${sent.index}].idempotency_key`,
        original: { id: row.id, seq: row.seq },
      });
    }
    found.set(row.key as string, { id: row.id, seq: row.seq });
  }
  return found;
}

/**
 * Write-time redaction (REDACT): detected values leave the event before anything else sees it —
 * the log, the idempotency fingerprint, the pipeline, the providers. What was found is counted in
 * `data.redacted` (kinds only, never values).
 */
function redactEvent(input: EventInput, redaction: RedactionPolicy): EventInput {
  if (redaction.size === 0) return input;
  const counts: RedactionCounts = {};
  const content = redactText(input.content, redaction, counts);
  const data = input.data ? redactJson(input.data, redaction, counts) : undefined;
  if (Object.keys(counts).length === 0) return input;
  return { ...input, content, data: { ...data, redacted: counts } };
}

/** `now` is when an event without `occurred_at` happened: the runtime's clock, like every memory time. */
function prepareEvent(input: EventInput, index: number, tokenizer: TokenCounter, now: Date): PreparedEvent {
  const key = input.idempotency_key ?? null;
  return {
    id: randomUUID(),
    index,
    ord: 0,
    type: input.type,
    role: input.role,
    content: input.content,
    data: input.data ?? null,
    token_count: tokenizer.count(input.content),
    importance: input.role === "user" ? ruleImportance([input.content]) : 0,
    idempotency_key: key,
    // Only what the client sent is fingerprinted; server defaults would differ on a re-send.
    request_hash: key ? sha256Hex(canonicalJson({ ...input, idempotency_key: undefined })) : null,
    occurred_at: input.occurred_at ?? now.toISOString(),
  };
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error; current && typeof current === "object"; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** Events after `after_seq` in sequence order; reads see every committed append (read-your-writes). */
export async function readEvents(
  db: Database,
  sessionId: string,
  query: ReadEventsQuery,
): Promise<{ session: SessionRow; events: SessionEventRow[] }> {
  const session = await getSession(db, sessionId);
  const events = await db
    .select()
    .from(sessionEvents)
    .where(and(eq(sessionEvents.sessionId, sessionId), gt(sessionEvents.seq, query.after_seq)))
    .orderBy(asc(sessionEvents.seq))
    .limit(query.limit);
  return { session, events };
}
