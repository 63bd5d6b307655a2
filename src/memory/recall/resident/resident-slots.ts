/** What a fused ranking needs of a memory besides the signal it was found by. */
export interface ResidentRow {
  id: string;
  sessionId: string | null;
  turnSeq: number | null;
  /** Exact text form, so the statement that reads the rows gets back the very timestamp (a Date drops microseconds). */
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

/** Which memories a query may see: those true at `nowMs`, of `types` (type codes; all when undefined). */
export interface VisibleAt {
  nowMs: number;
  types?: ReadonlySet<number>;
}

/**
 * One user's memories in dense slots, each with its row and visibility; subclasses keep what they
 * search by (vectors, words) in arrays of their own, indexed by the same slot. Removal moves the
 * last slot into the hole, so the arrays stay dense and a scan never skips.
 */
export abstract class ResidentSlots {
  protected size = 0;
  private capacity = 0;
  protected types = new Uint8Array(0);
  protected validMs = new Float64Array(0);
  protected invalidMs = new Float64Array(0);
  protected rows: ResidentRow[] = [];
  private readonly slotOf = new Map<string, number>();

  get count(): number {
    return this.size;
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.released(slot);
    const last = --this.size;
    if (slot !== last) {
      const moved = this.rows[last] as ResidentRow;
      this.rows[slot] = moved;
      this.slotOf.set(moved.id, slot);
      this.types[slot] = this.types[last] as number;
      this.validMs[slot] = this.validMs[last] as number;
      this.invalidMs[slot] = this.invalidMs[last] as number;
      this.moved(last, slot);
    }
    this.rows.length = this.size;
  }

  /** The memory's slot (a new one at the end when it is not held yet), with its row and visibility set. */
  protected place(row: ResidentRow, visibility: ResidentVisibility): { slot: number; replaced: boolean } {
    let slot = this.slotOf.get(row.id);
    const replaced = slot !== undefined;
    if (slot === undefined) {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.slotOf.set(row.id, slot);
    }
    this.rows[slot] = row;
    this.types[slot] = visibility.type;
    this.validMs[slot] = visibility.validMs;
    this.invalidMs[slot] = visibility.invalidMs;
    return { slot, replaced };
  }

  /** Whether the memory in `slot` is true at `nowMs` and of one of `types` (any, when undefined). */
  protected visible(slot: number, nowMs: number, types: ReadonlySet<number> | undefined): boolean {
    return (
      (this.validMs[slot] as number) <= nowMs &&
      (this.invalidMs[slot] as number) > nowMs &&
      (types === undefined || types.has(this.types[slot] as number))
    );
  }

  /** The subclass's data of `slot` is about to be dropped. */
  protected abstract released(slot: number): void;
  /** The subclass moves its data of slot `from` to slot `to`. */
  protected abstract moved(from: number, to: number): void;
  /** The subclass widens its arrays to `capacity` slots. */
  protected abstract grown(capacity: number): void;

  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    this.types = widen(this.types, capacity);
    this.validMs = widen(this.validMs, capacity);
    this.invalidMs = widen(this.invalidMs, capacity);
    this.grown(capacity);
    this.capacity = capacity;
  }
}

type TypedArray = Uint8Array | Int8Array | Uint32Array | Int32Array | Float32Array | Float64Array;

/** A copy of `array` with room for `length` elements (`array.length` of them kept). */
export function widen<T extends TypedArray>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
