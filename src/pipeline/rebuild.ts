import { and, eq, inArray, sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";
import { memories, memoryHistory, pipelineFailures, sessions } from "../db/schema/index.js";
import { resetGraph } from "../memory/graph/graph-state.js";
import { lockUser } from "../memory/user-lock.js";
import type { SessionProgress } from "./notifier.js";

export interface RebuildPlan {
  deletedMemories: number;
  /** Sessions to replay and reflect again, oldest first. */
  sessions: SessionProgress[];
}

/**
 * First half of a rebuild (E4): under the user's lock, remove every memory derived from the log
 * (with its history, sources and trait evidence), put API-written memories back the way they
 * were before log-derived versions superseded them, remove the entity graph (all of it is derived), and reset both watermarks of the user's
 * sessions. The pipeline then derives everything again from the events.
 */
export async function resetDerivedMemory(db: Database, scope: { appId: string; userId: string }): Promise<RebuildPlan> {
  return db.transaction(async (tx) => {
    await lockUser(tx, scope.appId, scope.userId);
    // Every memory of the user is locked first, in id order as every writer of several memories
    // locks them (row-lock-order): the changes below touch only these rows.
    const owned = await queryRows<{ id: string; derived: boolean }>(
      tx,
      sql`SELECT m.id, coalesce(m.metadata ->> 'origin', 'log') <> 'api' AS derived FROM memories m
           WHERE m.app_id = ${scope.appId} AND m.user_id = ${scope.userId} ORDER BY m.id FOR UPDATE OF m`,
    );
    const ids = owned.filter((row) => row.derived).map((row) => row.id);
    if (ids.length > 0) {
      await tx
        .update(memories)
        .set({ invalidAt: null, expiredAt: null, supersededBy: null, updatedAt: sql`now()` })
        .where(and(eq(memories.appId, scope.appId), eq(memories.userId, scope.userId), inArray(memories.supersededBy, ids)));
      await tx.delete(memoryHistory).where(inArray(memoryHistory.memoryId, ids));
      await tx.delete(memories).where(inArray(memories.id, ids));
    }
    await resetGraph(tx, scope);
    // A rebuild starts the user's derivation afresh: old failure counts no longer apply.
    await tx.delete(pipelineFailures).where(and(eq(pipelineFailures.appId, scope.appId), eq(pipelineFailures.userId, scope.userId)));
    // Reflection is asked for every session up to its end, on the session itself: if the events
    // sent after this commit are lost, the sweep still finds the work.
    const reset = await tx
      .update(sessions)
      .set({ replayedSeq: 0, reflectedSeq: 0, reflectionRequestedSeq: sql`${sessions.lastSeq}`, updatedAt: sql`now()` })
      .where(and(eq(sessions.appId, scope.appId), eq(sessions.userId, scope.userId)))
      .returning({ id: sessions.id, lastSeq: sessions.lastSeq, startedAt: sessions.startedAt });
    return {
      deletedMemories: ids.length,
      sessions: reset
        .filter((session) => session.lastSeq > 0)
        .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime())
        .map((session) => ({ session_id: session.id, app_id: scope.appId, user_id: scope.userId, last_seq: session.lastSeq })),
    };
  });
}
