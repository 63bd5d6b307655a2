import type { Extraction } from "./extraction.js";

/** One turn of a conversation as the language model sees it. */
export interface Turn {
  role: string;
  content: string;
  /** Sequence number in the session log, so a summary can name the turns it kept. */
  seq?: number;
  /** The participant's name, when the event gives one (`data.speaker`): whose "I" and "my" these are. */
  speaker?: string;
}

/** A fact the user's memory holds now, shown to the model so that it reuses the key. */
export interface KnownFact {
  key: string;
  value: unknown;
  content: string;
}

/** A node of the user's entity graph, shown to the model so that a name it mentions resolves to the same node. */
export interface KnownEntity {
  name: string;
  kind: string;
  aliases: string[];
}

export interface ExtractionRequest {
  /** Turns with their sequence numbers; extracted items cite them in `source_seqs`. */
  turns: (Turn & { seq: number })[];
  /** The user's current facts, most recently changed first: a statement about one of these attributes reuses its key. */
  knownFacts?: KnownFact[];
  /** The user's current entities: a person the turns name again is given the same name. */
  knownEntities?: KnownEntity[];
}

export interface SummaryRequest {
  turns: Turn[];
  /** Upper bound on words (seed 000 §8.1: at most 200). */
  maxWords: number;
}

export interface Summary {
  text: string;
  /**
   * The turns the summary was made from, when the model can tell (an extractive summary quotes
   * some turns and drops the rest); absent means all of them.
   */
  sourceSeqs?: number[];
}

/**
 * The LLM behind consolidation. Every call goes through this interface, so the pipeline runs on
 * Gemini in production, on any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp), and on
 * the deterministic offline implementation in the embedded default and in tests.
 */
export interface LanguageModel {
  /** Identifies the model, recorded with what it produced. */
  readonly id: string;
  /** A third-person summary of the turns that keeps decisions and conclusions. */
  summarize(request: SummaryRequest): Promise<Summary>;
  /**
   * Facts, insights, trait evidence, entities and relations stated in the turns, already validated against
   * `ExtractionSchema`; an implementation throws instead of returning partial output.
   */
  extract(request: ExtractionRequest): Promise<Extraction>;
}

/**
 * Who waits on an embedding: a request on its way to an answer (`query`), or the pipeline
 * (`background`: backfill, consolidation), which goes after queries but is never starved.
 */
export type EmbedPriority = "query" | "background";

export interface EmbedOptions {
  /** Default `background`. */
  priority?: EmbedPriority;
}

/** What an embedder's queue has done and holds, per priority: what the bench prints and `/metrics` reads. */
export interface EmbeddingQueueStats {
  slots: number;
  busySlots: number;
  /** Texts waiting, and how long the oldest of them has waited (ms). */
  waiting: Record<EmbedPriority, { texts: number; oldestWaitMs: number }>;
  /** Texts embedded, batches sent, and the total of the texts' waits before a slot took them (ms). */
  served: Record<EmbedPriority, { texts: number; batches: number; waitMs: number }>;
  /** When a 429 holds every slot back: ms left. */
  rateLimitedForMs: number;
}

/** Turns text into vectors. Vectors of different `model` ids are never compared. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /** Embeds documents; the result has one vector per input, in order. */
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]>;
  /** The queue in front of the model, when it has one. */
  readonly queue?: { stats(): EmbeddingQueueStats };
}

/** A provider failure that says whether retrying can help and how long to wait (429). */
export class ProviderError extends Error {
  /** The provider answered 429: every call to it should wait, not only this one. */
  readonly rateLimited: boolean;
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; rateLimited?: boolean },
  ) {
    super(message, options);
    this.name = "ProviderError";
    this.rateLimited = options?.rateLimited ?? false;
  }
}
