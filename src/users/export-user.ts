import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { memories, memoryHistory, memorySources, sessionEvents, sessions } from "../db/schema/index.js";
import type { Provenance } from "../memory/read/provenance-read.js";

export type ExportRecord =
  | { kind: "session"; row: typeof sessions.$inferSelect }
  | { kind: "event"; row: typeof sessionEvents.$inferSelect }
  | { kind: "memory"; row: typeof memories.$inferSelect; provenance: Provenance }
  | { kind: "history"; row: typeof memoryHistory.$inferSelect };

/**
 * Everything stored about one user, in order: sessions, their events, memories with their
 * sources, and history — what a data-access request asks for. `GET /v1/users/:id/export` and
 * `npx mnemo export` serialise it. Rows written by one pipeline step share its timestamp, so ties
 * are broken by id (sessions, memories) and by insertion order (history, where a memory's UPDATE
 * comes before its STAGE_CHANGE): two exports of unchanged data are byte-identical.
 */
export async function* exportUser(db: Database, scope: { appId: string; userId: string }): AsyncGenerator<ExportRecord> {
  const userSessions = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.appId, scope.appId), eq(sessions.userId, scope.userId)))
    .orderBy(asc(sessions.createdAt), asc(sessions.id));
  for (const row of userSessions) yield { kind: "session", row };
  // When each event was said: a memory's first and last statement are its sources' times.
  const saidAt = new Map<string, Date>();
  for (const session of userSessions) {
    for (const row of await db
      .select()
      .from(sessionEvents)
      .where(eq(sessionEvents.sessionId, session.id))
      .orderBy(asc(sessionEvents.seq))) {
      saidAt.set(row.id, row.occurredAt);
      yield { kind: "event", row };
    }
  }
  const rows = await db
    .select()
    .from(memories)
    .where(and(eq(memories.appId, scope.appId), eq(memories.userId, scope.userId)))
    .orderBy(asc(memories.createdAt), asc(memories.id));
  const sources =
    rows.length > 0
      ? await db
          .select()
          .from(memorySources)
          .where(
            inArray(
              memorySources.memoryId,
              rows.map((row) => row.id),
            ),
          )
      : [];
  for (const row of rows) {
    const own = sources
      .filter((source) => source.memoryId === row.id)
      .map((source) => ({ session_id: source.sessionId, event_id: source.eventId, seq: source.seq }));
    const times = own.flatMap((source) => saidAt.get(source.event_id)?.getTime() ?? []);
    const provenance: Provenance = {
      sources: own,
      firstStatedAt: times.length > 0 ? new Date(Math.min(...times)) : null,
      lastConfirmedAt: times.length > 0 ? new Date(Math.max(...times)) : null,
    };
    yield { kind: "memory", row, provenance };
  }
  for (const row of await db
    .select()
    .from(memoryHistory)
    .where(and(eq(memoryHistory.appId, scope.appId), eq(memoryHistory.userId, scope.userId)))
    .orderBy(asc(memoryHistory.createdAt), asc(memoryHistory.position))) {
    yield { kind: "history", row };
  }
}
