/** What a fused ranking needs of a memory besides its vector. */
export interface ResidentRow {
  id: string;
  sessionId: string | null;
  turnSeq: number | null;
  /** Exact text form, so the fusion statement gets back the very timestamp (a Date drops microseconds). */
  createdAt: string;
  /** The same instant in epoch milliseconds (with the microseconds as a fraction), to compare. */
  createdMs: number;
}

/** When a memory counts as true in the world: `invalidMs` is +Infinity while nothing ended it. */
export interface ResidentVisibility {
  type: number;
  validMs: number;
  invalidMs: number;
}

export interface ResidentHit extends ResidentRow {
  rank: number;
  /** Cosine similarity from the 8-bit copy (within ~0.001 of the exact one). */
  similarity: number;
}

export interface NearestQuery {
  /** The query vector, unit length. */
  unit: Float32Array;
  nowMs: number;
  /** Type codes a memory must have; all when undefined. */
  types?: ReadonlySet<number>;
  /** How many Hamming candidates are re-ranked, and how many of them are returned. */
  candidates: number;
  limit: number;
}

/** Estimated bytes per memory beyond its vector codes: bits, numbers, the row's strings, the map entry. */
const ROW_OVERHEAD_BYTES = 240;

/**
 * One user's live memories of one embedding model, in memory: per memory its sign bits (for a
 * Hamming pass over all of them) and its unit vector in 8 bits with a scale (for re-ranking the
 * Hamming candidates), its validity and what fusion needs. Removal moves the last slot into the
 * hole, so the arrays stay dense and a scan never skips.
 */
export class UserVectors {
  readonly dimensions: number;
  private readonly words: number;
  private size = 0;
  private capacity = 0;
  private bits = new Uint32Array(0);
  private codes = new Int8Array(0);
  private scales = new Float32Array(0);
  private types = new Uint8Array(0);
  private validMs = new Float64Array(0);
  private invalidMs = new Float64Array(0);
  private rows: ResidentRow[] = [];
  private readonly slotOf = new Map<string, number>();

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.words = Math.ceil(dimensions / 32);
  }

  get count(): number {
    return this.size;
  }

  get bytes(): number {
    return this.size * (this.dimensions + 4 * this.words + 21 + ROW_OVERHEAD_BYTES);
  }

  /** Adds or replaces a memory; a zero vector (no direction, so no cosine) is removed instead. */
  put(row: ResidentRow, visibility: ResidentVisibility, vector: Float32Array): void {
    if (vector.length !== this.dimensions)
      throw new Error(`a ${vector.length}-dimensional vector among ${this.dimensions}-dimensional ones`);
    let norm = 0;
    let largest = 0;
    for (const value of vector) {
      norm += value * value;
      largest = Math.max(largest, Math.abs(value));
    }
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(norm)) {
      this.remove(row.id);
      return;
    }
    let slot = this.slotOf.get(row.id);
    if (slot === undefined) {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.slotOf.set(row.id, slot);
    }
    this.rows[slot] = row;
    this.types[slot] = visibility.type;
    this.validMs[slot] = visibility.validMs;
    this.invalidMs[slot] = visibility.invalidMs;
    // Scaled to the largest component, so the 8 bits are spent where the vector has its range.
    const step = largest / norm / 127;
    this.scales[slot] = step;
    const codeOffset = slot * this.dimensions;
    const bitOffset = slot * this.words;
    this.bits.fill(0, bitOffset, bitOffset + this.words);
    for (let i = 0; i < this.dimensions; i++) {
      const value = vector[i] as number;
      this.codes[codeOffset + i] = Math.round(value / norm / step);
      if (value > 0) this.bits[bitOffset + (i >>> 5)] = ((this.bits[bitOffset + (i >>> 5)] as number) | (1 << (31 - (i & 31)))) >>> 0;
    }
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    const last = --this.size;
    if (slot !== last) {
      const moved = this.rows[last] as ResidentRow;
      this.rows[slot] = moved;
      this.slotOf.set(moved.id, slot);
      this.types[slot] = this.types[last] as number;
      this.validMs[slot] = this.validMs[last] as number;
      this.invalidMs[slot] = this.invalidMs[last] as number;
      this.scales[slot] = this.scales[last] as number;
      this.codes.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.bits.copyWithin(slot * this.words, last * this.words, (last + 1) * this.words);
    }
    this.rows.length = this.size;
  }

  /**
   * The `limit` nearest visible memories: the `candidates` closest by Hamming distance over sign
   * bits, re-ranked by cosine over the 8-bit vectors. The same two stages as the SQL
   * binary-quantised path, without reading a single row.
   */
  nearest(query: NearestQuery): ResidentHit[] {
    const { unit, nowMs, types } = query;
    if (unit.length !== this.dimensions) return [];
    const queryBits = new Uint32Array(this.words);
    for (let i = 0; i < this.dimensions; i++)
      if ((unit[i] as number) > 0) queryBits[i >>> 5] = ((queryBits[i >>> 5] as number) | (1 << (31 - (i & 31)))) >>> 0;
    // Distances of the visible memories, and how many lie at each distance, to find the cut-off.
    const invisible = this.dimensions + 1;
    const distances = new Uint16Array(this.size);
    const counts = new Uint32Array(this.dimensions + 2);
    for (let slot = 0; slot < this.size; slot++) {
      const visible =
        (this.validMs[slot] as number) <= nowMs &&
        (this.invalidMs[slot] as number) > nowMs &&
        (!types || types.has(this.types[slot] as number));
      let distance = invisible;
      if (visible) {
        distance = 0;
        const offset = slot * this.words;
        for (let w = 0; w < this.words; w++) distance += popCount((this.bits[offset + w] as number) ^ (queryBits[w] as number));
      }
      distances[slot] = distance;
      counts[distance] = (counts[distance] as number) + 1;
    }
    let cutoff = 0;
    let below = 0;
    while (cutoff < invisible && below + (counts[cutoff] as number) < query.candidates) below += counts[cutoff++] as number;
    const candidates: { slot: number; similarity: number }[] = [];
    let atCutoff = Math.min(query.candidates - below, cutoff < invisible ? (counts[cutoff] as number) : 0);
    for (let slot = 0; slot < this.size; slot++) {
      const distance = distances[slot] as number;
      if (distance < cutoff || (distance === cutoff && cutoff < invisible && atCutoff-- > 0)) {
        candidates.push({ slot, similarity: this.similarity(slot, unit) });
      }
    }
    candidates.sort((a, b) => b.similarity - a.similarity);
    return candidates.slice(0, query.limit).map((candidate, index) => ({
      ...(this.rows[candidate.slot] as ResidentRow),
      rank: index + 1,
      similarity: candidate.similarity,
    }));
  }

  private similarity(slot: number, unit: Float32Array): number {
    let dot = 0;
    const offset = slot * this.dimensions;
    for (let i = 0; i < this.dimensions; i++) dot += (unit[i] as number) * (this.codes[offset + i] as number);
    return dot * (this.scales[slot] as number);
  }

  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    const grown = <T extends Uint32Array | Int8Array | Float32Array | Uint8Array | Float64Array>(
      old: T,
      make: (length: number) => T,
      width: number,
    ): T => {
      const next = make(capacity * width);
      next.set(old);
      return next;
    };
    this.bits = grown(this.bits, (n) => new Uint32Array(n), this.words);
    this.codes = grown(this.codes, (n) => new Int8Array(n), this.dimensions);
    this.scales = grown(this.scales, (n) => new Float32Array(n), 1);
    this.types = grown(this.types, (n) => new Uint8Array(n), 1);
    this.validMs = grown(this.validMs, (n) => new Float64Array(n), 1);
    this.invalidMs = grown(this.invalidMs, (n) => new Float64Array(n), 1);
    this.capacity = capacity;
  }
}

/** Set bits of a 32-bit word (SWAR). */
function popCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}
