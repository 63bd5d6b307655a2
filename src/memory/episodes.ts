import { randomUUID } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { consolidationJobs, memories, memoryHistory, memorySources, sessions } from "../db/schema/index.js";
import { canonicalJson, sha256Hex } from "../util/hash.js";

export interface EpisodeSource {
  eventId: string;
  seq: number;
  occurredAt: string;
}

export interface WriteEpisodeInput {
  jobId: string;
  session: { id: string; appId: string; userId: string };
  /** The watermark this summary was computed after; the write happens only if it is still current. */
  fromSeq: number;
  /** First seq the summary covers (the chunk start); an episode of the same chunk is replaced. */
  chunkStart: number;
  toSeq: number;
  summary: string;
  importance: number;
  sources: EpisodeSource[];
  model: string;
}

/** `memoryId` is null when the chunk had nothing to summarise and only the watermark moved. */
export type WriteEpisodeResult = { advanced: true; memoryId: string | null } | { advanced: false; reason: "watermark_moved" };

export function contentHash(content: string): string {
  return sha256Hex(canonicalJson(content.trim().toLowerCase().replace(/\s+/g, " ")));
}

/**
 * Stores one episodic summary with its provenance and advances the fast-replay watermark, all in
 * one transaction (C6). The watermark moves only from the value the summary was computed after,
 * so a retried or concurrent run that lost the race writes nothing. The job row is completed in
 * the same transaction, so job status and memory can never disagree.
 */
export async function writeEpisode(db: Database, input: WriteEpisodeInput): Promise<WriteEpisodeResult> {
  return db.transaction(async (tx) => {
    const advanced = await tx
      .update(sessions)
      .set({ replayedSeq: input.toSeq, updatedAt: sql`now()` })
      .where(and(eq(sessions.id, input.session.id), eq(sessions.replayedSeq, input.fromSeq)))
      .returning({ id: sessions.id });
    if (advanced.length === 0) return { advanced: false, reason: "watermark_moved" } as const;
    if (input.summary.trim() === "") {
      await tx
        .update(consolidationJobs)
        .set({ status: "skipped", completedAt: sql`now()`, result: { reason: "no summarisable text" } })
        .where(eq(consolidationJobs.id, input.jobId));
      return { advanced: true, memoryId: null } as const;
    }

    const memoryId = randomUUID();
    const [previous] = await tx
      .select()
      .from(memories)
      .where(
        and(
          eq(memories.sessionId, input.session.id),
          eq(memories.type, "episodic"),
          isNull(memories.expiredAt),
          sql`(${memories.metadata} ->> 'from_seq')::int = ${input.chunkStart}`,
        ),
      );
    const first = input.sources[0];
    const last = input.sources[input.sources.length - 1];
    const row = {
      id: memoryId,
      appId: input.session.appId,
      userId: input.session.userId,
      sessionId: input.session.id,
      type: "episodic" as const,
      subtype: "summary",
      content: input.summary,
      importance: input.importance,
      validAt: new Date(last?.occurredAt ?? Date.now()),
      contentHash: contentHash(input.summary),
      metadata: {
        from_seq: input.chunkStart,
        to_seq: input.toSeq,
        started_at: first?.occurredAt,
        ended_at: last?.occurredAt,
        model: input.model,
      },
    };
    await tx.insert(memories).values(row);
    await tx
      .insert(memorySources)
      .values(input.sources.map((source) => ({ memoryId, eventId: source.eventId, sessionId: input.session.id, seq: source.seq })));
    await tx.insert(memoryHistory).values({
      id: randomUUID(),
      memoryId,
      appId: input.session.appId,
      userId: input.session.userId,
      operation: "ADD",
      actor: "fast-replay",
      after: { content: row.content, type: row.type, subtype: row.subtype, metadata: row.metadata },
      reason: previous ? `rolling summary of events ${input.chunkStart}-${input.toSeq}, replaces ${previous.id}` : `summary of events ${input.chunkStart}-${input.toSeq}`,
    });
    if (previous) {
      await tx.update(memories).set({ expiredAt: sql`now()`, supersededBy: memoryId, updatedAt: sql`now()` }).where(eq(memories.id, previous.id));
      await tx.insert(memoryHistory).values({
        id: randomUUID(),
        memoryId: previous.id,
        appId: input.session.appId,
        userId: input.session.userId,
        operation: "SUPERSEDE",
        actor: "fast-replay",
        before: { content: previous.content, metadata: previous.metadata },
        after: { superseded_by: memoryId },
        reason: `events up to ${input.toSeq} arrived`,
      });
    }
    await tx
      .update(consolidationJobs)
      .set({ status: "completed", completedAt: sql`now()`, result: { memory_id: memoryId }, progress: { done: input.toSeq - input.fromSeq } })
      .where(eq(consolidationJobs.id, input.jobId));
    return { advanced: true, memoryId } as const;
  });
}
