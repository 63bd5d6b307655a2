import { describe, expect, it } from "vitest";
import { UserTerms } from "../../src/memory/recall/resident/user-terms.js";

const row = (i: number) => ({ id: `m${i}`, sessionId: null, turnSeq: null, createdAt: String(i), createdMs: i });
const always = { type: 0, validMs: 0, invalidMs: Number.POSITIVE_INFINITY };

describe("UserTerms", () => {
  it("finds each memory by its latest words after replacements, removals and pool compactions", () => {
    const terms = new UserTerms();
    const latest = new Map<string, string[]>();
    // 2,000 memories, then half of them rewritten in each of five more rounds (more words each
    // time) and some removed: the word pool fills with garbage and is compacted several times,
    // moving ranges written rounds before.
    for (let round = 0; round < 6; round++) {
      for (let i = round % 2; i < 2_000; i += round === 0 ? 1 : 2) {
        const words = Array.from({ length: 2 + round + (i % 5) }, (_, k) => `w${(i * 7 + k * 13 + round * 101) % 300}`);
        terms.put(row(i), always, [...new Set(words)]);
        latest.set(`m${i}`, [...new Set(words)]);
      }
      for (let i = round; i < 2_000; i += 17) {
        terms.remove(`m${i}`);
        latest.delete(`m${i}`);
      }
    }
    expect(terms.count).toBe(latest.size);
    for (const word of ["w0", "w17", "w150", "w299"]) {
      const expected = [...latest].filter(([, words]) => words.includes(word)).map(([id]) => id);
      const found = terms.rank({ lexemes: [word], nowMs: 1, minCoverage: 0, limit: 10_000 }).map((hit) => hit.id);
      expect(new Set(found)).toEqual(new Set(expected));
    }
  });

  it("scores by BM25 over the visible memories only, shorter memories first, ties to the newer", () => {
    const terms = new UserTerms();
    terms.put(row(1), always, ["cat"]);
    terms.put(row(2), always, ["cat", "dog", "fish"]);
    terms.put(row(3), always, ["cat"]);
    terms.put(row(4), always, ["bird"]);
    terms.put(row(5), always, ["bird"]);
    // Not yet true: it counts neither for the statistics nor as a hit.
    terms.put(row(6), { ...always, validMs: 10 }, ["cat"]);
    const hits = terms.rank({ lexemes: ["cat"], nowMs: 1, minCoverage: 0, limit: 10 });
    expect(hits.map((hit) => hit.id)).toEqual(["m3", "m1", "m2"]);
    // idf of a word in 3 of 5 memories; the shortest memory's length norm is above 1.
    const idf = Math.log(1 + (5 - 3 + 0.5) / (3 + 0.5));
    const average = 7 / 5;
    expect(hits[0]?.score).toBeCloseTo((idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 1) / average)), 12);
    expect(hits[0]?.coverage).toBe(1);
  });
});
