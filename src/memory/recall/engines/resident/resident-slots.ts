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

/** The slots a query may see: shared by every query that sees the same, so read-only. */
export interface VisibleSlots {
  /** 1 for a visible slot, 0 for another, by slot. */
  readonly mask: Uint8Array;
  readonly count: number;
  /** Every slot is visible: a scan may ignore the mask. */
  readonly all: boolean;
}

/** A `VisibleSlots` and when it holds: at this version of the slots, for a time in `[fromMs, untilMs)`. */
interface KeptVisibility {
  slots: VisibleSlots;
  version: number;
  fromMs: number;
  untilMs: number;
}

/** Type filters whose visible slots are kept at once; queries use a handful (all types, or one or two). */
const KEPT_TYPE_FILTERS = 8;

/**
 * One user's memories in dense slots, each with its row and visibility; subclasses keep what they
 * search by (vectors, words) in arrays of their own, indexed by the same slot. Removal moves the
 * last slot into the hole, so the arrays stay dense and a scan never skips.
 *
 * Which slots a query may see is worked out once and kept (`visibleAt`) until a memory is put or
 * removed, or the query's time passes the start or end of some memory's validity: a pass over every
 * slot per arm per query was a large share of a search's main-thread time at 100K memories.
 */
export abstract class ResidentSlots {
  protected size = 0;
  private capacity = 0;
  protected types = new Uint8Array(0);
  protected validMs = new Float64Array(0);
  protected invalidMs = new Float64Array(0);
  protected rows: ResidentRow[] = [];
  private readonly slotOf = new Map<string, number>();
  /** Bumped by every put and removal: kept visibility of an older version is stale. */
  private version = 0;
  /** By type filter ("*" for any type). */
  private readonly kept = new Map<string, KeptVisibility>();

  get count(): number {
    return this.size;
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.version++;
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
    this.version++;
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

  /** Bytes of the kept visible slots' masks. */
  protected get visibilityBytes(): number {
    let bytes = 0;
    for (const kept of this.kept.values()) bytes += kept.slots.mask.length;
    return bytes;
  }

  /** The slots true at `nowMs` and of one of `types` (any, when undefined): kept from an earlier query when still the same. */
  protected visibleAt({ nowMs, types }: VisibleAt): VisibleSlots {
    const filter = types === undefined ? "*" : [...types].sort((a, b) => a - b).join(",");
    const kept = this.kept.get(filter);
    if (kept && kept.version === this.version && kept.fromMs <= nowMs && nowMs < kept.untilMs) return kept.slots;
    if (this.kept.size >= KEPT_TYPE_FILTERS) this.kept.clear();
    const mask = new Uint8Array(this.size);
    let count = 0;
    // The latest start or end of a validity at or before now, and the earliest after: between them nothing changes.
    let fromMs = Number.NEGATIVE_INFINITY;
    let untilMs = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < this.size; slot++) {
      const validMs = this.validMs[slot] as number;
      const invalidMs = this.invalidMs[slot] as number;
      if (validMs <= nowMs) fromMs = Math.max(fromMs, validMs);
      else untilMs = Math.min(untilMs, validMs);
      if (invalidMs <= nowMs) fromMs = Math.max(fromMs, invalidMs);
      else untilMs = Math.min(untilMs, invalidMs);
      if (validMs <= nowMs && invalidMs > nowMs && (types === undefined || types.has(this.types[slot] as number))) {
        mask[slot] = 1;
        count++;
      }
    }
    const slots = { mask, count, all: count === this.size };
    this.kept.set(filter, { slots, version: this.version, fromMs, untilMs });
    return slots;
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
