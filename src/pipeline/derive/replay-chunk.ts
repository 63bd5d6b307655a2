import type { Database } from "../../db/database.js";
import { writeEpisode } from "../../memory/write/episodes.js";
import { ruleImportance } from "../../memory/write/importance.js";
import type { LanguageModel, Summary } from "../../providers/types.js";
import { type ChunkOutcome, commitChunk } from "../chunk-unit.js";
import type { ReplayChunk } from "../replay-backlog.js";

/** A summary has at most 200 words. */
export const SUMMARY_MAX_WORDS = 200;

/** What replaying one chunk wrote: the summary episode (null when nothing was summarisable) and the new turns. */
export interface ReplayWritten {
  memoryId: string | null;
  turns: number;
}

/** The summary of one replay chunk. A redacted event is a tombstone with no words: nothing to summarise. */
export function summarizeChunk(llm: LanguageModel, chunk: ReplayChunk): Promise<Summary> {
  return llm.summarize({
    turns: chunk.events.filter((e) => e.content !== "").map((e) => ({ role: e.speaker, content: e.content, seq: e.seq })),
    maxWords: SUMMARY_MAX_WORDS,
  });
}

/**
 * Writes one chunk's turns and summary as episodes in the chunk's unit of work (`commitChunk`),
 * which moves the replay watermark only from where the chunk was loaded. The same body serves
 * fast replay and a rebuild's shadow derivation.
 */
export function writeChunkEpisodes(
  db: Database,
  chunk: ReplayChunk & { jobId: string },
  summary: Summary,
  writer: { model: string; now: Date },
): Promise<ChunkOutcome<ReplayWritten>> {
  const input = {
    session: chunk.session,
    fromSeq: chunk.fromSeq,
    chunkStart: chunk.chunkStart,
    toSeq: chunk.toSeq,
    summary: summary.text,
    ...(summary.sourceSeqs ? { summarySeqs: summary.sourceSeqs } : {}),
    importance: ruleImportance(chunk.events.map((e) => e.content)),
    events: chunk.events.map((e) => ({
      eventId: e.id,
      seq: e.seq,
      role: e.role,
      speaker: e.speaker,
      content: e.content,
      occurredAt: e.occurredAt,
      importance: e.importance,
    })),
    model: writer.model,
    now: writer.now,
  };
  return commitChunk<ReplayWritten>(db, "replay", chunk, async (tx) => {
    const episode = await writeEpisode(tx, input);
    if (!episode.written) return { refused: episode.refused };
    const { memoryId, turns } = episode;
    const progress = { done: chunk.toSeq - chunk.fromSeq };
    return {
      written: { memoryId, turns },
      job: memoryId
        ? { status: "completed", result: { memory_id: memoryId, turns }, progress }
        : { status: "skipped", result: { reason: "no summarisable text", turns }, progress },
    };
  });
}
