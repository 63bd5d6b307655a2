import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../src/db/database.js";
import { memories, memoryHistory, memorySources, sessionEvents, sessions } from "../src/db/schema/index.js";

/**
 * Everything stored about one user as JSONL records (`{kind, ...row}`): sessions, events,
 * memories with their sources, and history — what a data-access request asks for.
 */
export async function* exportUser(db: Database, scope: { appId: string; userId: string }): AsyncGenerator<Record<string, unknown>> {
  const userSessions = await db.select().from(sessions).where(and(eq(sessions.appId, scope.appId), eq(sessions.userId, scope.userId))).orderBy(asc(sessions.createdAt));
  for (const session of userSessions) yield { kind: "session", ...session };
  for (const session of userSessions) {
    for (const event of await db.select().from(sessionEvents).where(eq(sessionEvents.sessionId, session.id)).orderBy(asc(sessionEvents.seq))) yield { kind: "event", ...event };
  }
  const rows = await db.select().from(memories).where(and(eq(memories.appId, scope.appId), eq(memories.userId, scope.userId))).orderBy(asc(memories.createdAt));
  const sources = rows.length > 0 ? await db.select().from(memorySources).where(inArray(memorySources.memoryId, rows.map((row) => row.id))) : [];
  for (const { embedding: _embedding, ...row } of rows) yield { kind: "memory", ...row, sources: sources.filter((source) => source.memoryId === row.id) };
  for (const entry of await db.select().from(memoryHistory).where(and(eq(memoryHistory.appId, scope.appId), eq(memoryHistory.userId, scope.userId))).orderBy(asc(memoryHistory.createdAt))) yield { kind: "history", ...entry };
}
