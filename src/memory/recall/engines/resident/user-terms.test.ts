import { describe, expect, it } from "vitest";
import { bm25Idf, bm25LengthNorm, MAX_DOCUMENT_SHARE, rarestWords } from "../bm25.js";
import { UserTerms } from "./user-terms.js";

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

  it("ranks as BM25 computed memory by memory does, through churn that rebuilds its word lists", () => {
    type Held = { words: string[]; type: number; validMs: number; invalidMs: number; createdMs: number };
    const terms = new UserTerms();
    const held = new Map<string, Held>();
    let seed = 7;
    let writes = 0;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Words of skewed frequency: w0 in most memories, w59 in few.
    const word = () => `w${Math.floor(60 * random() ** 2)}`;
    const write = (i: number) => {
      const memory = {
        words: [...new Set(Array.from({ length: 1 + Math.floor(random() * 8) }, word))],
        type: Math.floor(random() * 3),
        validMs: random() < 0.1 ? 50 : 0,
        invalidMs: random() < 0.1 ? 20 : Number.POSITIVE_INFINITY,
        // Every write newer than the last: equal scores then have one order.
        createdMs: ++writes,
      };
      terms.put({ ...row(i), createdMs: memory.createdMs }, memory, memory.words);
      held.set(`m${i}`, memory);
    };
    /** BM25 as `rank` defines it, memory by memory: the reference. */
    const reference = (lexemes: string[], nowMs: number, types: Set<number> | undefined, minCoverage: number, limit: number) => {
      const visible = [...held].filter(([, m]) => m.validMs <= nowMs && m.invalidMs > nowMs && (!types || types.has(m.type)));
      const n = visible.length;
      const avg = visible.reduce((sum, [, m]) => sum + m.words.length, 0) / n || 1;
      const weights = rarestWords(
        [...new Set(lexemes)].flatMap((lexeme) => {
          const df = visible.filter(([, m]) => m.words.includes(lexeme)).length;
          return df > 0 && df <= n * MAX_DOCUMENT_SHARE ? [{ lexeme, idf: bm25Idf(n, df) }] : [];
        }),
      );
      const total = weights.reduce((sum, w) => sum + w.idf, 0);
      return visible
        .map(([id, m]) => ({ id, m, matched: weights.filter((w) => m.words.includes(w.lexeme)).reduce((sum, w) => sum + w.idf, 0) }))
        .filter((hit) => hit.matched > 0 && hit.matched >= minCoverage * total)
        .map((hit) => ({ id: hit.id, score: hit.matched * bm25LengthNorm(hit.m.words.length, avg), createdMs: hit.m.createdMs }))
        .sort((a, b) => b.score - a.score || b.createdMs - a.createdMs)
        .slice(0, limit);
    };
    for (let i = 0; i < 4_000; i++) write(i);
    // Rewrites and removals: well over the dead entries that make the lists be rebuilt.
    for (let round = 0; round < 8; round++) {
      for (let i = round; i < 4_000; i += 2) write(i);
      for (let i = round * 3; i < 4_000; i += 41) {
        terms.remove(`m${i}`);
        held.delete(`m${i}`);
      }
      for (let i = 4_000 + round * 50; i < 4_050 + round * 50; i++) write(i);
      const queries: [string[], number, Set<number> | undefined, number][] = [
        [["w0"], 10, undefined, 0],
        [["w3", "w40", "w59"], 10, undefined, 0],
        [["w1", "w2", "w30", "w55", "nowhere"], 30, new Set([0, 2]), 0.3],
        [["w5", "w45"], 60, new Set([1]), 0],
        // The same filter at other times, with no write between: past a validity's end (20) and
        // start (50), and back, so what one query saw visible must not serve the next.
        [["w0"], 30, undefined, 0],
        [["w0"], 60, undefined, 0],
        [["w0"], 10, undefined, 0],
        [["w3", "w40", "w59"], 19, undefined, 0],
      ];
      for (const [lexemes, nowMs, types, minCoverage] of queries) {
        const expected = reference(lexemes, nowMs, types, minCoverage, 50);
        const found = terms.rank({ lexemes, nowMs, ...(types ? { types } : {}), minCoverage, limit: 50 });
        expect(found.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
        for (const [k, hit] of found.entries()) expect(hit.score).toBeCloseTo(expected[k]?.score as number, 9);
      }
    }
    expect(terms.count).toBe(held.size);
  });
});
