import { bm25Idf, bm25LengthNorm, MAX_DOCUMENT_SHARE, MAX_QUERY_WORDS, rarestWords } from "../bm25.js";
import { type ResidentRow, ResidentSlots, type ResidentVisibility, type VisibleAt, type VisibleSlots, widen } from "./resident-slots.js";
import { WordPostings } from "./word-postings.js";

/** A memory found by its words, before ranks are given. */
export interface TermHit extends ResidentRow {
  score: number;
  /** Share of the query's idf mass the memory's words match (0-1). */
  coverage: number;
}

export interface TermQuery extends VisibleAt {
  /** The query's distinct lexemes (Postgres' `to_tsvector('english', …)`). */
  lexemes: string[];
  /** Least share of the query's idf mass a memory must match. */
  minCoverage: number;
  limit: number;
}

/** Estimated bytes per memory besides its lexeme ids: the arrays' slots, the row, the map entry. */
const ROW_OVERHEAD_BYTES = 160;

/**
 * One user's live memories as the lexemes each holds (its `content_tsv`), for BM25 in the
 * process, with no cache and no sample: the statistics are of exactly the memories the query may
 * see. A pass over the memories' visibility counts them and their words; the query's words are
 * then looked up in an inverted index (`WordPostings`), so only the memories that hold one are
 * touched. Every memory is here, with or without a vector: one not embedded yet is found by its words.
 *
 * The word ids of all memories sit in one pool, each memory's a range of it (its length is BM25's
 * document length, and the lists are rebuilt from it). A replaced or removed memory leaves its
 * range behind; the pool is compacted once more than half of it is such garbage.
 */
export class UserTerms extends ResidentSlots {
  private wordStart = new Uint32Array(0);
  private wordLength = new Uint32Array(0);
  private pool = new Uint32Array(1024);
  /** Pool entries in use (live ranges and garbage), and those of live ranges. */
  private poolUsed = 0;
  private liveWords = 0;
  /** Lexeme ids, never reused: a user's vocabulary only grows, and far slower than their memories. */
  private readonly lexemeIds = new Map<string, number>();
  private readonly postings = new WordPostings();
  /** Scratch for `rank`, by slot: the idf the memory matched (all zero between queries). */
  private matchedIdf = new Float64Array(0);
  /** The total length of the memories in each kept set of visible slots, summed once per set. */
  private readonly visibleLength = new WeakMap<VisibleSlots, number>();

  get bytes(): number {
    // A lexeme id is 4 bytes (the pool keeps up to as much again of garbage); a vocabulary entry about 60.
    return (
      this.size * ROW_OVERHEAD_BYTES +
      this.pool.length * 4 +
      this.lexemeIds.size * 60 +
      this.postings.bytes +
      8 * this.matchedIdf.length +
      this.visibilityBytes
    );
  }

  /** Adds or replaces a memory with its distinct lexemes. */
  put(row: ResidentRow, visibility: ResidentVisibility, lexemes: readonly string[]): void {
    const { slot, replaced } = this.place(row, visibility);
    // An old range is garbage from here on (a new slot's length is what its last holder left): a compaction in `reserve` skips it.
    if (replaced) this.released(slot);
    this.wordLength[slot] = 0;
    this.reserve(lexemes.length);
    this.wordStart[slot] = this.poolUsed;
    this.wordLength[slot] = lexemes.length;
    for (const lexeme of lexemes) {
      let id = this.lexemeIds.get(lexeme);
      if (id === undefined) {
        id = this.lexemeIds.size;
        this.lexemeIds.set(lexeme, id);
      }
      this.pool[this.poolUsed++] = id;
    }
    this.liveWords += lexemes.length;
    this.postings.add(slot, this.wordsOf(slot));
    if (this.postings.needsRebuild) this.postings.rebuild(this.size, (held) => this.wordsOf(held));
  }

  private wordsOf(slot: number): Uint32Array {
    const start = this.wordStart[slot] as number;
    return this.pool.subarray(start, start + (this.wordLength[slot] as number));
  }

  /**
   * The `limit` best memories by BM25 over the memories visible at `nowMs` (and of `types`): the
   * statistics (count, mean length, each word's document frequency) are of exactly those memories.
   * A memory must match `minCoverage` of the query's idf mass. Ties go to the newer memory.
   */
  rank(query: TermQuery): TermHit[] {
    // The query's words by lexeme id; unknown words match nothing.
    const queryIds: number[] = [];
    const queryWords: string[] = [];
    for (const lexeme of new Set(query.lexemes)) {
      const id = this.lexemeIds.get(lexeme);
      if (id === undefined) continue;
      queryIds.push(id);
      queryWords.push(lexeme);
    }
    if (queryIds.length === 0) return [];
    if (this.matchedIdf.length < this.size) this.matchedIdf = new Float64Array(this.wordLength.length);
    return this.score(query, queryIds, queryWords);
  }

  private score(query: TermQuery, queryIds: number[], words: string[]): TermHit[] {
    const { wordLength, matchedIdf } = this;
    // The statistics of the visible memories: how many, and their words.
    const visible = this.visibleAt(query);
    const { mask: visibleNow, count: visibleCount } = visible;
    let totalLength = this.visibleLength.get(visible);
    if (totalLength === undefined) {
      totalLength = 0;
      for (let slot = 0; slot < this.size; slot++) if (visibleNow[slot] === 1) totalLength += wordLength[slot] as number;
      this.visibleLength.set(visible, totalLength);
    }
    // Each word's document frequency among them, from its list.
    const slots = this.postings.slots;
    const df = Float64Array.from(queryIds, (word) => {
      const { entries, count } = this.postings.of(word);
      let holding = 0;
      for (let i = 0; i < count; i++) {
        const slot = slots[entries[i] as number] as number;
        if (slot >= 0 && visibleNow[slot] === 1) holding++;
      }
      return holding;
    });
    const idf = Float64Array.from(df, (count) =>
      count > 0 && count <= visibleCount * MAX_DOCUMENT_SHARE ? bm25Idf(visibleCount, count) : 0,
    );
    keepRarest(idf, words);
    const totalIdf = idf.reduce((sum, value) => sum + value, 0);
    if (!(totalIdf > 0)) return [];
    const avgLength = totalLength / visibleCount || 1;
    // The idf each visible memory matches, summed over the lists of the weighed words.
    const touched: number[] = [];
    queryIds.forEach((word, index) => {
      const weight = idf[index] as number;
      if (!(weight > 0)) return;
      const { entries, count } = this.postings.of(word);
      for (let i = 0; i < count; i++) {
        const slot = slots[entries[i] as number] as number;
        if (slot < 0 || visibleNow[slot] === 0) continue;
        if (matchedIdf[slot] === 0) touched.push(slot);
        matchedIdf[slot] = (matchedIdf[slot] as number) + weight;
      }
    });
    // Score them, keeping the best `limit` in a heap (and leaving the scratch at zero).
    const best = new BestHits(query.limit, (a, b) => (this.rows[a] as ResidentRow).createdMs - (this.rows[b] as ResidentRow).createdMs);
    for (const slot of touched) {
      const matched = matchedIdf[slot] as number;
      matchedIdf[slot] = 0;
      if (matched < query.minCoverage * totalIdf) continue;
      best.offer(slot, matched * bm25LengthNorm(wordLength[slot] as number, avgLength), matched / totalIdf);
    }
    return best.sorted().map((hit) => ({ ...(this.rows[hit.slot] as ResidentRow), score: hit.score, coverage: hit.coverage }));
  }

  /** Room for `words` more ids at the pool's end, compacting it first when most of it is garbage. */
  private reserve(words: number): void {
    if (this.poolUsed + words <= this.pool.length) return;
    const needed = this.liveWords + words;
    const target = this.liveWords * 2 < this.poolUsed ? this.pool.length : this.pool.length * 2;
    const next = new Uint32Array(Math.max(target, needed * 2, 1024));
    let used = 0;
    for (let slot = 0; slot < this.size; slot++) {
      const start = this.wordStart[slot] as number;
      const length = this.wordLength[slot] as number;
      next.set(this.pool.subarray(start, start + length), used);
      this.wordStart[slot] = used;
      used += length;
    }
    this.pool = next;
    this.poolUsed = used;
  }

  protected released(slot: number): void {
    this.liveWords -= this.wordLength[slot] as number;
    this.postings.drop(slot, this.wordLength[slot] as number);
  }

  protected moved(from: number, to: number): void {
    this.wordStart[to] = this.wordStart[from] as number;
    this.wordLength[to] = this.wordLength[from] as number;
    this.postings.moved(from, to);
  }

  protected grown(capacity: number): void {
    this.wordStart = widen(this.wordStart, capacity);
    this.wordLength = widen(this.wordLength, capacity);
    this.postings.grow(capacity);
  }
}

interface ScoredSlot {
  slot: number;
  score: number;
  coverage: number;
}

/**
 * The `limit` highest-scoring slots offered, in a min-heap: a common word matches thousands of
 * memories, and sorting them all to keep a hundred was a third of the ranking. Equal scores go to
 * the slot `newer` puts later (the newer memory).
 */
class BestHits {
  private readonly heap: ScoredSlot[] = [];

  constructor(
    private readonly limit: number,
    private readonly newer: (a: number, b: number) => number,
  ) {}

  offer(slot: number, score: number, coverage: number): void {
    if (this.heap.length < this.limit) {
      this.heap.push({ slot, score, coverage });
      this.up(this.heap.length - 1);
      return;
    }
    const worst = this.heap[0];
    // Most offers lose to the worst kept: decided without building a hit.
    if (!worst || score < worst.score || (score === worst.score && this.newer(slot, worst.slot) <= 0)) return;
    this.heap[0] = { slot, score, coverage };
    this.down(0);
  }

  sorted(): ScoredSlot[] {
    return [...this.heap].sort((a, b) => (this.better(a, b) ? -1 : this.better(b, a) ? 1 : 0));
  }

  private better(a: ScoredSlot, b: ScoredSlot): boolean {
    return a.score > b.score || (a.score === b.score && this.newer(a.slot, b.slot) > 0);
  }

  private up(index: number): void {
    const heap = this.heap;
    let at = index;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.better(heap[parent] as ScoredSlot, heap[at] as ScoredSlot)) break;
      [heap[parent], heap[at]] = [heap[at] as ScoredSlot, heap[parent] as ScoredSlot];
      at = parent;
    }
  }

  private down(index: number): void {
    const heap = this.heap;
    let at = index;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < heap.length && this.better(heap[worst] as ScoredSlot, heap[left] as ScoredSlot)) worst = left;
      if (right < heap.length && this.better(heap[worst] as ScoredSlot, heap[right] as ScoredSlot)) worst = right;
      if (worst === at) return;
      [heap[worst], heap[at]] = [heap[at] as ScoredSlot, heap[worst] as ScoredSlot];
      at = worst;
    }
  }
}

/** Zeroes the idf of every weighed word but the `MAX_QUERY_WORDS` rarest, as SQL's ranking keeps them (`bm25Weights`). */
function keepRarest(idf: Float64Array, words: string[]): void {
  const weighed = words.flatMap((lexeme, index) => ((idf[index] as number) > 0 ? [{ lexeme, idf: idf[index] as number, index }] : []));
  if (weighed.length <= MAX_QUERY_WORDS) return;
  const kept = new Set(rarestWords(weighed).map((word) => word.index));
  for (const word of weighed) if (!kept.has(word.index)) idf[word.index] = 0;
}
