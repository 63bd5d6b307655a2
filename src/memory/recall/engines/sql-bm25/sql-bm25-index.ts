import { withSettings } from "../../../../db/pool-statements.js";
import { bm25Weights } from "../bm25.js";
import type { RecallIndex, RecallRequest } from "../recall-index.js";
import { TURN_SEQ } from "../turn-seq.js";
import {
  type CorpusStatisticsCache,
  corpusStatistics,
  countVisible,
  DEFAULT_COUNT_LIMITS,
  WORD_INDEX_MIN_CORPUS,
} from "./corpus-statistics.js";
import { textRankingPlan } from "./text-plan.js";
import { rankByWords, smallCorpusStatistics, wordsToCount } from "./text-ranking.js";

/** Most memories one query word brings to the full-text ranking of a large corpus (at least the pool). */
const TEXT_MATCHES_PER_WORD = 1_000;

export interface SqlBm25Options {
  /** Least share of a query's BM25 weight a candidate matches (RECALL_MIN_TEXT_COVERAGE); default 0. */
  minTextCoverage?: number;
  /** Large corpora's statistics, kept for minutes instead of counted per query. */
  statistics?: CorpusStatisticsCache;
  /** Corpora of at least this many memories are matched through the word index (default WORD_INDEX_MIN_CORPUS); smaller ones row by row. */
  wordIndexMinCorpus?: number;
}

/**
 * The text channel in SQL: BM25 over the visible memories' `content_tsv`. A small corpus (under
 * `wordIndexMinCorpus`) is read row by row, once for the statistics and once for the ranking. A
 * large one goes through the word index, JIT off, its statistics cached; only memories holding one
 * of the query's essential words are read (`essentialTerms`), which leaves the result as it was: a
 * name in most of a conversation's turns no longer makes every query read most of the user's
 * memories. A word held by more than `TEXT_MATCHES_PER_WORD` memories brings only that many (which
 * ones is up to the plan). Of a long query only the `MAX_QUERY_WORDS` rarest words are weighed
 * (`bm25Weights`); a large corpus counts only as many (`wordsToCount`). Answers every request.
 *
 * @example
 * const text = sqlBm25Index({ minTextCoverage: 0.3, statistics: new CorpusStatisticsCache() });
 */
export function sqlBm25Index(options: SqlBm25Options = {}): RecallIndex {
  return {
    name: "sql-bm25",
    rank: async (request) => ({ hits: await rankByText(request, options) }),
    plan(request) {
      const key = statisticsKeyOf(request);
      const { statistics } = options;
      return textRankingPlan(request, {
        known: key ? statistics?.lookup(key) : undefined,
        remember: (counted) => (key ? statistics?.remember(key, counted) : undefined),
        minCoverage: options.minTextCoverage ?? 0,
        maxCorpus: options.wordIndexMinCorpus ?? WORD_INDEX_MIN_CORPUS,
        matchesPerWord: Math.max(TEXT_MATCHES_PER_WORD, request.pool),
      });
    },
  };
}

/** The corpus a request searches, as the statistics cache knows it: none for a past moment or a window (their corpus is the query's own). */
function statisticsKeyOf(request: Pick<RecallRequest, "appId" | "userId" | "types" | "asOf" | "window">): string | undefined {
  return request.asOf || request.window ? undefined : `${request.appId}\u0000${request.userId}\u0000${request.types?.join(",") ?? ""}`;
}

async function rankByText(request: RecallRequest, options: SqlBm25Options) {
  const { db, visible, pool } = request;
  const statisticsKey = statisticsKeyOf(request);
  const { statistics } = options;
  const known = statisticsKey ? statistics?.lookup(statisticsKey) : undefined;
  const minCoverage = options.minTextCoverage ?? 0;
  const wordIndexMinCorpus = options.wordIndexMinCorpus ?? WORD_INDEX_MIN_CORPUS;
  const lexemes = await request.lexemes();
  if (lexemes.length === 0) return [];
  // A corpus not known to be large is read row by row, in two passes whatever the number of words
  // (no transaction: neither statement costs enough for JIT); one that turns out large is not.
  if (!known || known.n < wordIndexMinCorpus) {
    const corpus = await smallCorpusStatistics(db, visible, lexemes, wordIndexMinCorpus);
    if (corpus) {
      const weights = essentialTerms(bm25Weights(corpus), minCoverage);
      return rankByWords(db, { visible, weights, avgLength: corpus.avgLength, minCoverage, pool, turnSeq: TURN_SEQ });
    }
  }
  // The planner's cost of the text ranking (it cannot know how few rows the weights match) passes
  // jit_above_cost at scale, and compiling then took most of the statement's time on a real
  // Postgres; JIT pays off for analytics, never for a lookup this short. Each statement carries
  // the setting (one round trip each, no transaction around them).
  const jitOff = withSettings(db, { jit: "off" });
  const size = known?.n ?? (await countVisible(jitOff, visible));
  const words = await wordsToCount(jitOff, visible, lexemes, DEFAULT_COUNT_LIMITS.sample);
  const corpus = await corpusStatistics(jitOff, visible, words, known, DEFAULT_COUNT_LIMITS, size);
  if (statisticsKey) statistics?.remember(statisticsKey, corpus);
  const weights = essentialTerms(bm25Weights(corpus), minCoverage);
  return rankByWords(jitOff, {
    visible,
    weights,
    avgLength: corpus.avgLength,
    minCoverage,
    pool,
    turnSeq: TURN_SEQ,
    matchesPerWord: Math.max(TEXT_MATCHES_PER_WORD, pool),
  });
}

/**
 * Marks the words a memory must hold one of to reach `minCoverage` of the query's idf mass. The
 * commonest words whose idf together stays below that share cannot qualify a memory on their own,
 * so candidates are only looked up through the others (the "essential" words of MaxScore); the
 * common ones still add to the score of every candidate that holds them.
 *
 * @example
 * essentialTerms([{ lexeme: "the", idf: 0.1 }, { lexeme: "maya", idf: 4 }], 0.5); // "the" is not essential
 */
export function essentialTerms(
  weights: { lexeme: string; idf: number }[],
  minCoverage: number,
): { lexeme: string; idf: number; essential: boolean }[] {
  const threshold = minCoverage * weights.reduce((sum, weight) => sum + weight.idf, 0);
  let dropped = 0;
  const inessential = new Set<string>();
  for (const weight of [...weights].sort((a, b) => a.idf - b.idf)) {
    if (dropped + weight.idf >= threshold) break;
    dropped += weight.idf;
    inessential.add(weight.lexeme);
  }
  return weights.map((weight) => ({ ...weight, essential: !inessential.has(weight.lexeme) }));
}
