import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import { redactedAmong } from "../../sessions/redacted-events.js";
import { current } from "../visibility.js";
import { contentHash } from "./content-hash.js";
import { isLowInformation } from "./low-information.js";
import { insertMemories, writeHistory } from "./memory-writes.js";

export interface EpisodeEvent {
  eventId: string;
  seq: number;
  /** `user`, `assistant`…: recall ranks an assistant's turns below the user's own. */
  role: string;
  speaker: string;
  content: string;
  occurredAt: string;
  importance: number;
}

export interface WriteEpisodeInput {
  session: { id: string; appId: string; userId: string };
  /** The watermark this summary was computed after: events past it are new turns. */
  fromSeq: number;
  /** First seq the summary covers (the chunk start); an episode of the same chunk is replaced. */
  chunkStart: number;
  toSeq: number;
  summary: string;
  importance: number;
  /** Every event of the chunk, oldest first. */
  events: EpisodeEvent[];
  /** Seqs the summary was made from; absent means all events of the chunk. */
  summarySeqs?: number[];
  model: string;
  /** The runtime's clock reading: the system time of what is written. */
  now: Date;
  /**
   * Vectors of the episodes' texts (`episodeTexts`), embedded before the transaction: rows are
   * written with them instead of being filled by the backfill. A text without one is left to it.
   */
  vectors?: { model: string; byText: ReadonlyMap<string, number[]> };
}

/** The memories a chunk's episode writes: its new turns, as `speaker: content`. */
function freshTurns(input: Pick<WriteEpisodeInput, "events" | "fromSeq">): EpisodeEvent[] {
  return input.events.filter((event) => event.seq > input.fromSeq && event.content.trim() !== "" && !isLowInformation(event.content));
}

const turnText = (event: EpisodeEvent) => `${event.speaker}: ${event.content}`;

/**
 * The texts `writeEpisode` will store for this chunk (its new turns, then the summary), so they
 * can be embedded before its transaction opens.
 *
 * @example
 * const vectors = await embedder.embed(episodeTexts(input));
 */
export function episodeTexts(input: Pick<WriteEpisodeInput, "events" | "fromSeq" | "summary">): string[] {
  return [...freshTurns(input).map(turnText), ...(input.summary.trim() === "" ? [] : [input.summary])];
}

function vectorOf(input: WriteEpisodeInput, content: string) {
  const vector = input.vectors?.byText.get(content);
  return vector && input.vectors ? { embedding: vector, embeddingModel: input.vectors.model, embeddedAt: input.now } : {};
}

/**
 * `memoryId` is null when the chunk had nothing to summarise; `refused` when an event it quotes was
 * redacted after the chunk was read (its words must not be written).
 */
export type WriteEpisodeResult = { written: true; memoryId: string | null; turns: number } | { written: false; refused: "source_redacted" };

/**
 * Fast replay's memory write, inside the caller's transaction, which holds the user's lock:
 * each new event as a `turn` episode (the raw episodes that retrieval searches, like Graphiti's
 * episodic nodes), and the chunk's summary with its provenance, rewriting the chunk's previous
 * summary (rolling episodes). Writes nothing when a quoted event was redacted since it was read
 * (the redaction moved the watermark back and asked for a replay that reads the tombstone).
 *
 * @example
 * const written = await writeEpisode(tx, { session, fromSeq: 0, chunkStart: 1, toSeq: 3, summary, importance: 0.4, events, model, now });
 */
export async function writeEpisode(tx: Queryable, input: WriteEpisodeInput): Promise<WriteEpisodeResult> {
  const quoted = input.events.filter((event) => event.content !== "").map((event) => event.eventId);
  if ((await redactedAmong(tx, quoted)).size > 0) return { written: false, refused: "source_redacted" };
  const turns = await writeTurns(tx, input);
  const memoryId = input.summary.trim() === "" ? null : await writeSummary(tx, input);
  return { written: true, memoryId, turns };
}

async function writeTurns(tx: Queryable, input: WriteEpisodeInput): Promise<number> {
  const fresh = freshTurns(input);
  await insertMemories(
    tx,
    fresh.map((event) => {
      const content = turnText(event);
      return {
        row: {
          id: randomUUID(),
          appId: input.session.appId,
          userId: input.session.userId,
          sessionId: input.session.id,
          type: "episodic" as const,
          subtype: "turn",
          content,
          importance: Math.max(0.3, event.importance),
          validAt: new Date(event.occurredAt),
          contentHash: contentHash(content),
          metadata: { seq: event.seq, origin: "log", role: event.role },
          ...vectorOf(input, content),
        },
        sources: [{ session_id: input.session.id, event_id: event.eventId, seq: event.seq }],
      };
    }),
    "fast-replay",
    input.now,
  );
  return fresh.length;
}

async function writeSummary(tx: Queryable, input: WriteEpisodeInput): Promise<string> {
  const memoryId = randomUUID();
  const [previous] = await tx
    .select()
    .from(memories)
    .where(
      and(
        eq(memories.sessionId, input.session.id),
        eq(memories.type, "episodic"),
        eq(memories.subtype, "summary"),
        current(memories),
        sql`(${memories.metadata} ->> 'from_seq')::int = ${input.chunkStart}`,
      ),
    );
  const used = input.summarySeqs ? new Set(input.summarySeqs) : undefined;
  const sources = input.events.filter((event) => !used || used.has(event.seq));
  const first = input.events[0];
  const last = input.events[input.events.length - 1];
  await insertMemories(
    tx,
    [
      {
        row: {
          id: memoryId,
          appId: input.session.appId,
          userId: input.session.userId,
          sessionId: input.session.id,
          type: "episodic",
          subtype: "summary",
          content: input.summary,
          importance: input.importance,
          validAt: new Date(last?.occurredAt ?? input.now),
          contentHash: contentHash(input.summary),
          ...vectorOf(input, input.summary),
          metadata: {
            from_seq: input.chunkStart,
            to_seq: input.toSeq,
            started_at: first?.occurredAt,
            ended_at: last?.occurredAt,
            model: input.model,
            origin: "log",
          },
        },
        sources: sources.map((event) => ({ session_id: input.session.id, event_id: event.eventId, seq: event.seq })),
        reason: previous
          ? `rolling summary of events ${input.chunkStart}-${input.toSeq}, replaces ${previous.id}`
          : `summary of events ${input.chunkStart}-${input.toSeq}`,
      },
    ],
    "fast-replay",
    input.now,
  );
  if (previous) {
    await tx
      .update(memories)
      .set({ expiredAt: input.now, supersededBy: memoryId, updatedAt: input.now })
      .where(eq(memories.id, previous.id));
    await writeHistory(tx, {
      memoryId: previous.id,
      appId: input.session.appId,
      userId: input.session.userId,
      operation: "SUPERSEDE",
      actor: "fast-replay",
      before: { content: previous.content, metadata: previous.metadata },
      after: { supersededBy: memoryId },
      reason: `events up to ${input.toSeq} arrived`,
      at: input.now,
    });
  }
  return memoryId;
}
