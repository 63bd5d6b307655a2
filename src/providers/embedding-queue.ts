import { type EmbeddingQueueStats, type EmbedPriority, ProviderError } from "./types.js";

/**
 * Runs one batch on one slot (a worker thread, a concurrent HTTP call): one vector per text, in
 * order. A batch holds texts of one priority (a provider may embed queries differently).
 */
export type RunBatch = (texts: string[], slot: number, priority: EmbedPriority) => Promise<number[][]>;

export interface EmbeddingQueueOptions {
  /** Batches that may run at once: worker threads, or concurrent calls a provider allows. */
  slots: number;
  /** Most texts one batch carries; a longer request is split, and short ones travel together. */
  maxBatchTexts: number;
  /**
   * For a model that pads every text of a batch to the longest (the offline one): the most a batch
   * may hold of texts × its longest text's characters. A request's texts are then grouped by length,
   * so a long summary no longer makes fifteen short turns cost what fifteen summaries would.
   */
  maxPaddedChars?: number;
  run: RunBatch;
  /**
   * How long background texts wait while queries keep every slot busy before they take the next
   * free one anyway: the bound on backfill's lag under a steady stream of queries.
   */
  maxBackgroundWaitMs?: number;
  /** A query that a provider's 429 would hold back longer than this fails at once (recall falls back to text). */
  maxQueryRateLimitWaitMs?: number;
  /** Times a batch is sent again after 429s before its requests fail. */
  maxRateLimitRetries?: number;
  /** Milliseconds on a monotonic clock (tests move it by hand). */
  now?: () => number;
}

export interface EmbeddingQueue {
  embed(texts: string[], priority: EmbedPriority): Promise<number[][]>;
  stats(): EmbeddingQueueStats;
}

interface Request {
  vectors: number[][];
  remaining: number;
  failed: boolean;
  resolve: (vectors: number[][]) => void;
  reject: (error: Error) => void;
}

/** Texts of one request, queued together: `positions` says where each one's vector goes. */
interface Piece {
  request: Request;
  positions: number[];
  texts: string[];
  /** The longest text's length. */
  longest: number;
  priority: EmbedPriority;
  enqueuedAt: number;
  rateLimited: number;
}

const DEFAULT_MAX_BACKGROUND_WAIT_MS = 1_000;
const DEFAULT_MAX_QUERY_RATE_LIMIT_WAIT_MS = 2_000;
const DEFAULT_MAX_RATE_LIMIT_RETRIES = 5;
/** A 429 that names no wait: the first pause, doubled on each further one. */
const DEFAULT_RATE_LIMIT_PAUSE_MS = 1_000;

/**
 * One queue in front of an embedder's slots, with two priorities. A query (a request waiting on
 * its answer) goes before background work (backfill, consolidation); while queries keep coming,
 * one slot stays theirs, and background texts that have waited `maxBackgroundWaitMs` take the next
 * free slot anyway, so backfill is slowed, never starved. Requests that arrive while the slots are
 * busy leave together in the next batch, up to `maxBatchTexts` texts of one priority.
 *
 * A rate-limited batch (a `ProviderError` with a retry delay) pauses every slot for that long and
 * goes back to the front of its queue: the provider's limit holds for all of them.
 *
 * @example
 * const queue = createEmbeddingQueue({ slots: 4, maxBatchTexts: 100, run: (texts) => callProvider(texts) });
 * const [vector] = await queue.embed(["where does ana live?"], "query");
 */
export function createEmbeddingQueue(options: EmbeddingQueueOptions): EmbeddingQueue {
  const now = options.now ?? (() => performance.now());
  const maxBackgroundWaitMs = options.maxBackgroundWaitMs ?? DEFAULT_MAX_BACKGROUND_WAIT_MS;
  const maxQueryWaitMs = options.maxQueryRateLimitWaitMs ?? DEFAULT_MAX_QUERY_RATE_LIMIT_WAIT_MS;
  const maxRetries = options.maxRateLimitRetries ?? DEFAULT_MAX_RATE_LIMIT_RETRIES;
  const limits: BatchLimits = { texts: options.maxBatchTexts, paddedChars: options.maxPaddedChars ?? Number.POSITIVE_INFINITY };
  const queues: Record<EmbedPriority, Piece[]> = { query: [], background: [] };
  const served: EmbeddingQueueStats["served"] = {
    query: { texts: 0, batches: 0, waitMs: 0 },
    background: { texts: 0, batches: 0, waitMs: 0 },
  };
  const idle = Array.from({ length: options.slots }, (_, slot) => slot);
  let pausedUntil = 0;
  let pauseTimer: ReturnType<typeof setTimeout> | undefined;
  let consecutivePauses = 0;

  const oldestWait = (priority: EmbedPriority) => {
    const first = queues[priority][0];
    return first ? now() - first.enqueuedAt : 0;
  };

  /** The priority the next free slot serves, if any may run now. */
  const nextPriority = (): EmbedPriority | undefined => {
    const queries = queues.query.length > 0;
    const background = queues.background.length > 0;
    if (background && oldestWait("background") >= maxBackgroundWaitMs) return "background";
    if (queries) return "query";
    // The last free slot is kept for the queries that come while others are running.
    if (background && (idle.length > 1 || options.slots === 1 || !queriesRecently())) return "background";
    return undefined;
  };
  let lastQueryAt = Number.NEGATIVE_INFINITY;
  const queriesRecently = () => now() - lastQueryAt < maxBackgroundWaitMs;

  /** Runs `pump` once the pause is over (a timer may fire a hair early: it checks again). */
  const resumeAfterPause = () => {
    clearTimeout(pauseTimer);
    pauseTimer = setTimeout(pump, Math.max(1, Math.ceil(pausedUntil - now())));
    pauseTimer.unref?.();
  };

  const pump = () => {
    while (idle.length > 0) {
      if (now() < pausedUntil) {
        resumeAfterPause();
        return;
      }
      const priority = nextPriority();
      if (!priority) return;
      const batch = takeBatch(queues[priority], limits);
      if (batch.length === 0) continue;
      const slot = idle.shift() as number;
      const startedAt = now();
      const stats = served[priority];
      stats.batches++;
      for (const piece of batch) {
        stats.texts += piece.texts.length;
        stats.waitMs += (startedAt - piece.enqueuedAt) * piece.texts.length;
      }
      void runBatch(batch, slot, priority);
    }
  };

  const runBatch = async (batch: Piece[], slot: number, priority: EmbedPriority) => {
    const texts = batch.flatMap((piece) => piece.texts);
    try {
      const vectors = await options.run(texts, slot, priority);
      if (vectors.length !== texts.length) throw new Error(`embedder returned ${vectors.length} vectors for ${texts.length} texts`);
      consecutivePauses = 0;
      let at = 0;
      for (const piece of batch) {
        deliver(piece, vectors.slice(at, at + piece.texts.length));
        at += piece.texts.length;
      }
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (isRateLimit(failure)) requeueAfterRateLimit(batch, failure);
      else for (const piece of batch) fail(piece.request, failure);
    } finally {
      idle.push(slot);
      pump();
    }
  };

  const requeueAfterRateLimit = (batch: Piece[], error: ProviderError) => {
    const pauseMs = error.retryAfterMs ?? DEFAULT_RATE_LIMIT_PAUSE_MS * 2 ** Math.min(consecutivePauses, 6);
    consecutivePauses++;
    pausedUntil = Math.max(pausedUntil, now() + pauseMs);
    for (const piece of [...batch].reverse()) {
      if (piece.request.failed) continue;
      piece.rateLimited++;
      const tooLong = piece.priority === "query" && pauseMs > maxQueryWaitMs;
      if (tooLong || piece.rateLimited > maxRetries) fail(piece.request, error);
      else queues[piece.priority].unshift(piece);
    }
  };

  const deliver = (piece: Piece, vectors: number[][]) => {
    const request = piece.request;
    if (request.failed) return;
    for (const [i, vector] of vectors.entries()) request.vectors[piece.positions[i] as number] = vector;
    request.remaining -= piece.texts.length;
    if (request.remaining === 0) request.resolve(request.vectors);
  };

  const fail = (request: Request, error: Error) => {
    if (request.failed) return;
    request.failed = true;
    // Its other pieces still queued are dropped; those in flight are ignored when they return.
    for (const queue of Object.values(queues)) {
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i]?.request === request) queue.splice(i, 1);
    }
    request.reject(error);
  };

  return {
    embed(texts, priority) {
      if (texts.length === 0) return Promise.resolve([]);
      return new Promise<number[][]>((resolve, reject) => {
        const request: Request = { vectors: new Array(texts.length), remaining: texts.length, failed: false, resolve, reject };
        const enqueuedAt = now();
        if (priority === "query") lastQueryAt = enqueuedAt;
        for (const positions of pieces(texts, limits)) {
          const part = positions.map((position) => texts[position] as string);
          const longest = Math.max(...part.map((text) => text.length));
          queues[priority].push({ request, positions, texts: part, longest, priority, enqueuedAt, rateLimited: 0 });
        }
        pump();
      });
    },
    stats(): EmbeddingQueueStats {
      const waiting = (priority: EmbedPriority) => ({
        texts: queues[priority].reduce((sum, piece) => sum + piece.texts.length, 0),
        oldestWaitMs: oldestWait(priority),
      });
      return {
        slots: options.slots,
        busySlots: options.slots - idle.length,
        waiting: { query: waiting("query"), background: waiting("background") },
        served: { query: { ...served.query }, background: { ...served.background } },
        rateLimitedForMs: Math.max(0, pausedUntil - now()),
      };
    },
  };
}

interface BatchLimits {
  texts: number;
  paddedChars: number;
}

/** Whether `count` texts, the longest `longest` characters, fit one batch. */
const fits = (limits: BatchLimits, count: number, longest: number) => count <= limits.texts && count * longest <= limits.paddedChars;

/**
 * A request's texts in pieces that each fit a batch: in their order, or for a padding model
 * shortest first, so that each piece holds texts of about one length.
 */
function pieces(texts: string[], limits: BatchLimits): number[][] {
  const order = texts.map((_, position) => position);
  if (Number.isFinite(limits.paddedChars)) order.sort((a, b) => (texts[a] as string).length - (texts[b] as string).length);
  const result: number[][] = [];
  let current: number[] = [];
  for (const position of order) {
    // Sorted ascending, this text is the piece's longest.
    if (current.length > 0 && !fits(limits, current.length + 1, (texts[position] as string).length)) {
      result.push(current);
      current = [];
    }
    current.push(position);
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** The first pieces of `queue`, in order, while they fit one batch (the first always goes). */
function takeBatch(queue: Piece[], limits: BatchLimits): Piece[] {
  let texts = 0;
  let longest = 0;
  let taken = 0;
  while (taken < queue.length) {
    const piece = queue[taken] as Piece;
    if (taken > 0 && !fits(limits, texts + piece.texts.length, Math.max(longest, piece.longest))) break;
    texts += piece.texts.length;
    longest = Math.max(longest, piece.longest);
    taken++;
  }
  return queue.splice(0, taken);
}

/** A provider's 429: retryable, with a delay the provider named or none at all. */
function isRateLimit(error: Error): error is ProviderError {
  return error instanceof ProviderError && error.rateLimited;
}
