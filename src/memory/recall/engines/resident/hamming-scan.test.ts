import { describe, expect, it } from "vitest";
import { HammingScanner, SCANNER_MIN_CAPACITY, SignBits } from "./hamming-scan.js";

/** Set bits of a 32-bit word, one at a time: slow and plainly right. */
const popcount = (word: number) => {
  let count = 0;
  for (let rest = word >>> 0; rest !== 0; rest = (rest & (rest - 1)) >>> 0) count++;
  return count;
};

let seed = 11;
const random32 = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return (seed * 2 + (seed >>> 7)) >>> 0;
};

describe("HammingScanner", () => {
  it("counts the differing bits of every vector, its bits kept through growth, for dimensions that fill no 64-bit word", () => {
    for (const dimensions of [512, 100, 64]) {
      const scanner = new HammingScanner(dimensions);
      expect(scanner.words % 2).toBe(0);
      expect(scanner.words * 32).toBeGreaterThanOrEqual(dimensions);
      const used = Math.ceil(dimensions / 32);
      const written: number[][] = [];
      // Written in three rounds, growing between them: past the first 64 KB page, then well past it.
      for (const capacity of [10, 1_000, 5_000]) {
        scanner.grow(capacity);
        for (let slot = written.length; slot < capacity; slot++) {
          // Only the words the dimensions use; the padding stays zero, as UserVectors leaves it.
          const words = Array.from({ length: scanner.words }, (_, w) => (w < used ? random32() : 0));
          scanner.bits.set(words, slot * scanner.words);
          written.push(words);
        }
      }
      const query = Uint32Array.from({ length: scanner.words }, (_, w) => (w < used ? random32() : 0));
      const distances = scanner.distances(query, written.length);
      const expected = written.map((words) => words.reduce((sum, word, w) => sum + popcount(word ^ (query[w] as number)), 0));
      expect([...distances]).toEqual(expected);
      // Fewer than held: only those.
      expect([...scanner.distances(query, 3)]).toEqual(expected.slice(0, 3));
      expect(() => scanner.distances(query, 5_001)).toThrow(/room for 5000/);
    }
  });
});

describe("SignBits", () => {
  it("counts the components of differing sign, in JavaScript while small and in WebAssembly once grown, the bits carried across", () => {
    const dimensions = 100;
    const signs = new SignBits(dimensions);
    // Components of both signs, and zeros (not positive: the bit of a negative one).
    const vector = () => Array.from({ length: dimensions }, () => [-1, 0, 0.5][random32() % 3] as number);
    const written: number[][] = [];
    const query = vector();
    for (const capacity of [16, 4_096, SCANNER_MIN_CAPACITY, SCANNER_MIN_CAPACITY * 2]) {
      signs.grow(capacity);
      for (let slot = written.length; slot < capacity - 3; slot++) {
        const components = vector();
        signs.set(slot, components);
        written.push(components);
      }
      // A move, as a removal makes: the last slot's bits into slot 0.
      signs.move(written.length - 1, 0);
      written[0] = written[written.length - 1] as number[];
      const expected = written.map((components) => components.filter((value, i) => value > 0 !== (query[i] as number) > 0).length);
      expect([...signs.distances(query, written.length)]).toEqual(expected);
    }
  });

  it("lets a process hold more small copies than it could WebAssembly memories (~13,000)", () => {
    const copies = Array.from({ length: 20_000 }, () => {
      const signs = new SignBits(512);
      signs.grow(64);
      signs.set(0, [1]);
      return signs;
    });
    expect(copies.every((signs) => signs.distances([], 1)[0] === 1)).toBe(true);
  });
});
