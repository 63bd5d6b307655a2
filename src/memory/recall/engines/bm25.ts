import { compareCodeUnits } from "../../../util/compare-code-units.js";

/** BM25 parameters, the usual defaults; term frequency is taken as 1 (memories are short). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** A word in more than this share of the memories tells almost nothing (idf < 0.25) and is left out. */
export const MAX_DOCUMENT_SHARE = 0.8;

/**
 * Most query words a text ranking weighs: the rarest in the user's memories. A question has far
 * fewer (LoCoMo's longest has 17 words); a pasted page can have thousands, and every ranking
 * statement matched each word against each row: 2,500 distinct words over 2,000 memories made
 * one search slow enough to notice on a real Postgres, and 365 of them made a 100K-memory user's
 * statement too deep to build.
 * A long text's rarest words are the ones that tell its memories apart.
 */
export const MAX_QUERY_WORDS = 32;

/** BM25's inverse document frequency of a word held by `df` of `n` memories. */
export const bm25Idf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/** What a matched word's idf is multiplied by in a memory of `length` distinct words. */
export const bm25LengthNorm = (length: number, avgLength: number): number =>
  (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength));

/**
 * BM25 weights of the query's words. Postgres ranks (ts_rank) have no inverse document frequency,
 * so a question's common words would outweigh its rare, telling ones. A word in more than
 * `MAX_DOCUMENT_SHARE` of the memories would make the ranking touch most of them for almost
 * nothing: it is left out, as is a word no memory has, and all but the `MAX_QUERY_WORDS` rarest.
 */
export function bm25Weights(corpus: { n: number; terms: { lexeme: string; df: number }[] }): { lexeme: string; idf: number }[] {
  return rarestWords(
    corpus.terms
      .filter((term) => term.df > 0 && term.df <= corpus.n * MAX_DOCUMENT_SHARE)
      .map((term) => ({ lexeme: term.lexeme, idf: bm25Idf(corpus.n, term.df) })),
  );
}

/**
 * The `max` words of highest idf, in their given order; of equal idf, the first in code-unit
 * order (as Postgres sorts a tsvector's lexemes), so every ranking keeps the same ones.
 */
export function rarestWords<T extends { lexeme: string; idf: number }>(weights: T[], max = MAX_QUERY_WORDS): T[] {
  if (weights.length <= max) return weights;
  const kept = new Set([...weights].sort((a, b) => b.idf - a.idf || compareCodeUnits(a.lexeme, b.lexeme)).slice(0, max));
  return weights.filter((weight) => kept.has(weight));
}
