import { widen } from "./resident-slots.js";

/** No slot: the memory this ordinal named was removed or rewritten. */
const GONE = -1;
/** Dead entries tolerated before a rebuild, however few the live ones. */
const MIN_DEAD_BEFORE_REBUILD = 65_536;

/** One word's entries: the ordinals of the memories that held it when they were written. */
export interface PostingList {
  entries: Uint32Array;
  count: number;
}

const EMPTY: PostingList = { entries: new Uint32Array(0), count: 0 };

/**
 * For each word (a lexeme id), the memories holding it: an inverted index over a user's resident
 * slots, so a query touches only the memories that hold its words instead of every word of every
 * memory (at 100K memories a scan read 1.2M word ids per query).
 *
 * Entries name a memory by an ordinal, not its slot: slots move when another memory is removed,
 * and finding a moved memory in the lists of all its words would cost a scan of each. A memory
 * gets a new ordinal whenever it is written, and its old entries die in place (`slotOf` says
 * `GONE`); once the dead entries outnumber the live ones, the lists are rebuilt from the words
 * themselves and the ordinals start again at the slots.
 */
export class WordPostings {
  private lists: PostingList[] = [];
  private ordinalOfSlot = new Uint32Array(0);
  /** By ordinal: the slot of the memory it names, or `GONE`. */
  private slotOfOrdinal = new Int32Array(1024);
  private nextOrdinal = 0;
  private liveEntries = 0;
  private deadEntries = 0;
  /** Room in all lists together, kept as they grow: the budget check reads `bytes` on every recall. */
  private entryCapacity = 0;

  get bytes(): number {
    return 4 * (this.entryCapacity + this.ordinalOfSlot.length + this.slotOfOrdinal.length) + 40 * this.lists.length;
  }

  /** Slot by ordinal (`GONE`, negative, for a dead entry), for a caller walking a list. */
  get slots(): Int32Array {
    return this.slotOfOrdinal;
  }

  /** The entries of `word` (some of them dead). */
  of(word: number): PostingList {
    return this.lists[word] ?? EMPTY;
  }

  /** Room for `capacity` slots. */
  grow(capacity: number): void {
    this.ordinalOfSlot = widen(this.ordinalOfSlot, capacity);
  }

  /** Lists the memory in `slot` under each of its `words`, with a fresh ordinal. */
  add(slot: number, words: Uint32Array): void {
    if (this.nextOrdinal === this.slotOfOrdinal.length) this.slotOfOrdinal = widen(this.slotOfOrdinal, this.nextOrdinal * 2);
    const ordinal = this.nextOrdinal++;
    this.slotOfOrdinal[ordinal] = slot;
    this.ordinalOfSlot[slot] = ordinal;
    for (const word of words) this.append(word, ordinal);
    this.liveEntries += words.length;
  }

  /** The memory in `slot`, holding `wordCount` words, is removed or about to be rewritten: its entries die. */
  drop(slot: number, wordCount: number): void {
    this.slotOfOrdinal[this.ordinalOfSlot[slot] as number] = GONE;
    this.liveEntries -= wordCount;
    this.deadEntries += wordCount;
  }

  /** The memory in slot `from` now lives in slot `to`. */
  moved(from: number, to: number): void {
    const ordinal = this.ordinalOfSlot[from] as number;
    this.ordinalOfSlot[to] = ordinal;
    this.slotOfOrdinal[ordinal] = to;
  }

  get needsRebuild(): boolean {
    return this.deadEntries > MIN_DEAD_BEFORE_REBUILD && this.deadEntries > this.liveEntries;
  }

  /** Every list anew from the `size` live slots' words, dead entries gone, ordinals equal to slots. */
  rebuild(size: number, wordsOf: (slot: number) => Uint32Array): void {
    const counts: number[] = [];
    for (let slot = 0; slot < size; slot++) for (const word of wordsOf(slot)) counts[word] = (counts[word] ?? 0) + 1;
    this.lists = counts.map((count) => ({ entries: new Uint32Array(count ?? 0), count: 0 }));
    this.entryCapacity = counts.reduce((sum, count) => sum + (count ?? 0), 0);
    this.slotOfOrdinal = new Int32Array(Math.max(1024, size * 2));
    this.liveEntries = 0;
    this.deadEntries = 0;
    for (let slot = 0; slot < size; slot++) {
      this.slotOfOrdinal[slot] = slot;
      this.ordinalOfSlot[slot] = slot;
      const words = wordsOf(slot);
      for (const word of words) this.append(word, slot);
      this.liveEntries += words.length;
    }
    this.nextOrdinal = size;
  }

  private append(word: number, ordinal: number): void {
    let list = this.lists[word];
    if (!list) {
      list = { entries: new Uint32Array(4), count: 0 };
      this.lists[word] = list;
      this.entryCapacity += 4;
    }
    if (list.count === list.entries.length) {
      list.entries = widen(list.entries, list.count * 2);
      this.entryCapacity += list.count;
    }
    list.entries[list.count++] = ordinal;
  }
}
