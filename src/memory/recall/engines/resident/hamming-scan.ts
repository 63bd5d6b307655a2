import { widen } from "./resident-slots.js";

/**
 * The Hamming pass of the resident vector arm: over a small copy in JavaScript, over a large one in
 * WebAssembly, 64 bits at a time with the CPU's own popcount (`i64.popcnt`), where JavaScript has
 * neither 64-bit integers nor a popcount and counts bits with shifts and masks. At 100K memories of
 * 512 dimensions the WebAssembly pass was about five times faster (`npm run bench -- --engines`).
 *
 * The module is 167 bytes, written out below instruction by instruction rather than compiled
 * from a text format at build time (which would need a toolchain for one loop).
 */

/**
 * Copies this large get WebAssembly memory of their own. Each `WebAssembly.Memory` reserves
 * gigabytes of address space (V8's bounds checks), and a process could make only ~13,000 of them:
 * one per resident user would fail with that many users. Below this a pass in JavaScript is cheap anyway.
 */
export const SCANNER_MIN_CAPACITY = 8_192;

/** 32-bit words of sign bits per vector: whole 64-bit words, the padding zero. */
export const wordsFor = (dimensions: number) => 2 * Math.ceil(dimensions / 64);

const I32 = 0x7f;
const op = {
  block: 0x02,
  loop: 0x03,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  localGet: 0x20,
  localSet: 0x21,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Shl: 0x74,
  i64Load: 0x29,
  i64Xor: 0x85,
  i64Popcnt: 0x7b,
  i32WrapI64: 0xa7,
  i32Store16: 0x3b,
} as const;
const EMPTY_BLOCK = 0x40;

// Parameters and locals of `scan(bits, count, words, query, out)`.
const BITS = 0; // address of the first vector's bits
const COUNT = 1; // vectors
const WORDS = 2; // 64-bit words per vector
const QUERY = 3; // address of the query's bits
const OUT = 4; // address of `count` 16-bit distances
const SLOT = 5;
const WORD = 6;
const DISTANCE = 7;
const STRIDE = 8; // bytes per vector

/** `address + word * 8`, then the 64-bit word there. */
const loadWord = (address: number) => [op.localGet, address, op.localGet, WORD, op.i32Const, 3, op.i32Shl, op.i32Add, op.i64Load, 3, 0];

/** For each of `count` vectors: the popcount of its bits XOR the query's, stored as a 16-bit distance. */
const SCAN_BODY = [
  ...[1, 4, I32], // four i32 locals: slot, word, distance, stride
  ...[op.localGet, WORDS, op.i32Const, 3, op.i32Shl, op.localSet, STRIDE],
  ...[op.block, EMPTY_BLOCK, op.loop, EMPTY_BLOCK],
  ...[op.localGet, SLOT, op.localGet, COUNT, op.i32GeU, op.brIf, 1],
  ...[op.i32Const, 0, op.localSet, DISTANCE, op.i32Const, 0, op.localSet, WORD],
  ...[op.block, EMPTY_BLOCK, op.loop, EMPTY_BLOCK],
  ...[op.localGet, WORD, op.localGet, WORDS, op.i32GeU, op.brIf, 1],
  ...[
    op.localGet,
    DISTANCE,
    ...loadWord(BITS),
    ...loadWord(QUERY),
    op.i64Xor,
    op.i64Popcnt,
    op.i32WrapI64,
    op.i32Add,
    op.localSet,
    DISTANCE,
  ],
  ...[op.localGet, WORD, op.i32Const, 1, op.i32Add, op.localSet, WORD, op.br, 0],
  ...[op.end, op.end],
  ...[op.localGet, OUT, op.localGet, SLOT, op.i32Const, 1, op.i32Shl, op.i32Add, op.localGet, DISTANCE, op.i32Store16, 1, 0],
  ...[op.localGet, BITS, op.localGet, STRIDE, op.i32Add, op.localSet, BITS],
  ...[op.localGet, SLOT, op.i32Const, 1, op.i32Add, op.localSet, SLOT, op.br, 0],
  ...[op.end, op.end],
  op.end,
];

const name = (text: string) => [text.length, ...Array.from(text, (char) => char.charCodeAt(0))];
/** A section: its id, its size in bytes (LEB128), its bytes. */
const section = (id: number, bytes: number[]) => [id, ...unsignedLeb128(bytes.length), ...bytes];

function unsignedLeb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    bytes.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return bytes;
}

const MODULE_BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]), // one type: five i32 in, nothing out
  ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]), // the memory, from JavaScript
  ...section(3, [1, 0]), // one function, of that type
  ...section(7, [1, ...name("scan"), 0x00, 0]), // exported as "scan"
  ...section(10, [1, ...unsignedLeb128(SCAN_BODY.length), ...SCAN_BODY]),
]);

let compiled: WebAssembly.Module | undefined;
const PAGE_BYTES = 65_536;

/**
 * Sign bits of up to `capacity` vectors in WebAssembly memory, with the query's and the distances
 * beside them. Memory: the query's bits, then every vector's (a vector's words padded to an even
 * count, so that it is whole 64-bit words), then the distances. Growing keeps the vectors' bits
 * where they are; the views are replaced, so take them anew after `grow`.
 */
export class HammingScanner {
  /** 32-bit words per vector (even). */
  readonly words: number;
  bits: Uint32Array;
  private readonly memory = new WebAssembly.Memory({ initial: 1 });
  private readonly scanAll: (bits: number, count: number, words: number, query: number, out: number) => void;
  private readonly queryOffset = 0;
  private readonly bitsOffset: number;
  private capacity = 0;

  constructor(dimensions: number) {
    this.words = wordsFor(dimensions);
    this.bitsOffset = this.words * 4;
    compiled ??= new WebAssembly.Module(MODULE_BYTES);
    const instance = new WebAssembly.Instance(compiled, { env: { memory: this.memory } });
    this.scanAll = instance.exports["scan"] as (bits: number, count: number, words: number, query: number, out: number) => void;
    this.bits = new Uint32Array(this.memory.buffer, this.bitsOffset, 0);
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Room for `capacity` vectors, their bits kept. */
  grow(capacity: number): void {
    const needed = this.bitsOffset + capacity * (this.words * 4 + 2);
    const pages = Math.ceil(needed / PAGE_BYTES) - this.memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = capacity;
    this.bits = new Uint32Array(this.memory.buffer, this.bitsOffset, capacity * this.words);
  }

  /** The Hamming distance of each of the first `count` vectors to `query` (its `words` words), by slot; valid until the next call. */
  distances(query: Uint32Array, count: number): Uint16Array {
    if (count > this.capacity) throw new Error(`${count} vectors in room for ${this.capacity}`);
    new Uint32Array(this.memory.buffer, this.queryOffset, this.words).set(query);
    const out = this.bitsOffset + this.capacity * this.words * 4;
    this.scanAll(this.bitsOffset, count, this.words / 2, this.queryOffset, out);
    return new Uint16Array(this.memory.buffer, out, count);
  }
}

/**
 * The sign bits of a user's vectors, `words` per slot (a bit per positive component, the first
 * component in the first word's top bit), with their Hamming pass: in a plain array while the copy
 * is small, moved into a `HammingScanner` once it grows to `SCANNER_MIN_CAPACITY`.
 */
export class SignBits {
  readonly words: number;
  private scanner: HammingScanner | undefined;
  private plain = new Uint32Array(0);

  constructor(private readonly dimensions: number) {
    this.words = wordsFor(dimensions);
  }

  /** Every slot's words; take it anew after `grow`. */
  get bits(): Uint32Array {
    return this.scanner?.bits ?? this.plain;
  }

  /** Sets `slot`'s bits to the signs of `vector`. */
  set(slot: number, vector: ArrayLike<number>): void {
    writeSigns(vector, this.bits, slot * this.words, this.words);
  }

  /** The slot `from`'s bits copied to slot `to`. */
  move(from: number, to: number): void {
    this.bits.copyWithin(to * this.words, from * this.words, (from + 1) * this.words);
  }

  /** Room for `capacity` slots, the bits kept. */
  grow(capacity: number): void {
    if (this.scanner) {
      this.scanner.grow(capacity);
      return;
    }
    if (capacity < SCANNER_MIN_CAPACITY) {
      this.plain = widen(this.plain, capacity * this.words);
      return;
    }
    const scanner = new HammingScanner(this.dimensions);
    scanner.grow(capacity);
    scanner.bits.set(this.plain);
    this.scanner = scanner;
    this.plain = new Uint32Array(0);
  }

  /** The Hamming distance of the signs of `vector` to each of the first `count` slots', by slot; valid until the next call. */
  distances(vector: ArrayLike<number>, count: number): Uint16Array {
    const query = new Uint32Array(this.words);
    writeSigns(vector, query, 0, this.words);
    return this.scanner ? this.scanner.distances(query, count) : plainDistances(this.plain, this.words, query, count);
  }
}

/** The signs of `vector` into the `words` words of `bits` at `offset` (the padding zero). */
function writeSigns(vector: ArrayLike<number>, bits: Uint32Array, offset: number, words: number): void {
  bits.fill(0, offset, offset + words);
  for (let i = 0; i < vector.length; i++)
    if ((vector[i] as number) > 0) bits[offset + (i >>> 5)] = ((bits[offset + (i >>> 5)] as number) | (1 << (31 - (i & 31)))) >>> 0;
}

/** The pass in JavaScript, for a small copy. */
function plainDistances(bits: Uint32Array, words: number, query: Uint32Array, count: number): Uint16Array {
  const distances = new Uint16Array(count);
  for (let slot = 0; slot < count; slot++) {
    const offset = slot * words;
    let distance = 0;
    for (let w = 0; w < words; w++) distance += popcount32((bits[offset + w] as number) ^ (query[w] as number));
    distances[slot] = distance;
  }
  return distances;
}

/** Set bits of a 32-bit word (SWAR: pairs, nibbles, then one multiply adds the four byte counts). */
function popcount32(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
