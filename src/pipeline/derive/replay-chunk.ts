import type { Database } from "../../db/database.js";
import { episodeTexts, writeEpisode } from "../../memory/write/episodes.js";
import { ruleImportance } from "../../memory/write/importance.js";
import type { Embedder, LanguageModel, Summary } from "../../providers/types.js";
import { withUsageScope } from "../../providers/usage-scope.js";
import { type ChunkOutcome, commitChunk } from "../chunk-unit.js";
import type { ReplayChunk } from "../replay-backlog.js";

/** A summary has at most 200 words. */
export const SUMMARY_MAX_WORDS = 200;

/**
 * What replaying one chunk wrote: the summary episode (null when nothing was summarisable), the new
 * turns, and how many of them were written without a vector (left to the backfill).
 */
export interface ReplayWritten {
  memoryId: string | null;
  turns: number;
  unembedded: number;
}

/**
 * Vectors for the texts a chunk's episode will write, by text; none when there is no embedder (a
 * rebuild's preview) or it failed: the rows are then written without, and the backfill, with its
 * retries and dead letters, fills them. Replay itself never fails on the embedder.
 */
async function embedEpisodes(
  embedder: Embedder | undefined,
  chunk: ReplayChunk,
  texts: string[],
): Promise<{ model: string; byText: Map<string, number[]> } | undefined> {
  if (!embedder || texts.length === 0) return undefined;
  try {
    const scope = { appId: chunk.session.appId, userId: chunk.session.userId, stage: "backfill" as const };
    const vectors = await withUsageScope(scope, () => embedder.embed(texts));
    return { model: embedder.model, byText: new Map(texts.map((text, index) => [text, vectors[index] as number[]])) };
  } catch {
    return undefined;
  }
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
 * which moves the replay watermark only from where the chunk was loaded; with an `embedder`, their
 * vectors are made first, outside the transaction, and written with the rows. The same body serves
 * fast replay and a rebuild's shadow derivation.
 */
export async function writeChunkEpisodes(
  db: Database,
  chunk: ReplayChunk & { jobId: string },
  summary: Summary,
  writer: { model: string; now: Date; embedder?: Embedder },
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
  const texts = episodeTexts(input);
  const vectors = await embedEpisodes(writer.embedder, chunk, texts);
  return commitChunk<ReplayWritten>(db, "replay", chunk, async (tx) => {
    const episode = await writeEpisode(tx, vectors ? { ...input, vectors } : input);
    if (!episode.written) return { refused: episode.refused };
    const { memoryId, turns } = episode;
    const progress = { done: chunk.toSeq - chunk.fromSeq };
    const unembedded = vectors ? 0 : texts.length;
    return {
      written: { memoryId, turns, unembedded },
      job: memoryId
        ? { status: "completed", result: { memory_id: memoryId, turns }, progress }
        : { status: "skipped", result: { reason: "no summarisable text", turns }, progress },
    };
  });
}
