import { type SQL, sql } from "drizzle-orm";
import { m } from "../../../visibility.js";
import { BM25_B, BM25_K1, MAX_DOCUMENT_SHARE, MAX_QUERY_WORDS } from "../bm25.js";
import type { PlanRequest, RankingPlan } from "../recall-index.js";
import { TURN_SEQ } from "../turn-seq.js";
import {
  type CorpusStatistics,
  DEFAULT_COUNT_LIMITS,
  type KnownStatistics,
  WORD_INDEX_MIN_CORPUS,
  wordMatch,
} from "./corpus-statistics.js";

/** What the text channel's plan needs to know of the corpus it ranks, and its settings. */
export interface TextPlanCorpus {
  /** What the statistics cache knows of this corpus (nothing for a past moment or a window). */
  known: KnownStatistics | undefined;
  /** Keeps what a large corpus's plan counted, as the cache keeps a ranking's. */
  remember(counted: CorpusStatistics): void;
  minCoverage: number;
  /** Corpora of this many memories or more are matched through the word index (`wordIndexMinCorpus`). */
  maxCorpus: number;
  /** Large corpus: most memories one essential word brings. */
  matchesPerWord: number;
}

/**
 * The text channel's BM25 ranking (`sql-bm25`) as relations of one statement, the same ranking
 * `rankByText` makes in a statement per step: the query's words (`to_tsvector`), the corpus
 * statistics, the words' weights (`bm25Weights`: the 32 rarest of those in at most 80% of the
 * memories), which are essential (`essentialTerms`), and the best `pool` memories holding one.
 *
 * Two corpora, as there: one the cache does not know to be large is read row by row; if it holds
 * `maxCorpus` memories after all, the plan says so (`accept` is false) and recall ranks channel by
 * channel, counting the large corpus's statistics for the cache. One the cache knows to be large
 * takes its size, mean length and common words' counts from the cache and counts the rest through
 * the word index, as `corpusStatistics` does, then matches each essential word through the index.
 * The words are not known when the statement is written, so each weight is a slot of fixed
 * arrays: the same sums in the same order as the constants of the statement per step.
 */
export function textRankingPlan(request: PlanRequest, corpus: TextPlanCorpus): RankingPlan {
  const large = corpus.known !== undefined && corpus.known.n >= corpus.maxCorpus;
  const names = {
    lexemes: request.relation("lexemes"),
    corpus: request.relation("corpus"),
    terms: request.relation("terms"),
    weights: request.relation("weights"),
    query: request.relation("query"),
    candidates: request.relation("candidates"),
    hits: request.relation("hits"),
  };
  const statistics = large ? largeCorpus(request, names, corpus.known as KnownStatistics) : smallCorpus(request, names, corpus.maxCorpus);
  const { lexemes, terms, weights, query, candidates, hits } = names;
  const total = sql`(SELECT sum(idf ORDER BY ord) FROM ${weights})`;
  return {
    relations: [
      sql`${lexemes} AS MATERIALIZED (
        SELECT w.lexeme, w.ord::int AS ord, quote_literal(w.lexeme)::tsquery AS query
          FROM unnest(tsvector_to_array(to_tsvector('english', ${request.text}))) WITH ORDINALITY AS w(lexeme, ord)
      )`,
      ...statistics.relations,
      sql`${weights} AS MATERIALIZED (
        SELECT * FROM (
          SELECT t.lexeme, t.ord, t.query, ln(1::float8 + (c.n - t.df + 0.5::float8) / (t.df + 0.5::float8)) AS idf
            FROM ${terms} t CROSS JOIN ${names.corpus} c
           WHERE t.df > 0 AND t.df <= c.n * ${MAX_DOCUMENT_SHARE}::float8
        ) weighed
        ORDER BY idf DESC, lexeme COLLATE "C"
        LIMIT ${MAX_QUERY_WORDS}
      )`,
      // The weights in the query's order, a slot each; the commonest words whose weights together
      // stay below the coverage floor are not essential (MaxScore).
      sql`${query} AS MATERIALIZED (
        SELECT array_agg(e.query ORDER BY e.ord) AS queries, array_agg(e.idf ORDER BY e.ord) AS idfs,
               array_agg(e.query ORDER BY e.ord) FILTER (WHERE e.essential) AS essential, ${total} AS total
          FROM (
            SELECT w.query, w.ord, w.idf,
                   NOT (sum(w.idf) OVER (ORDER BY w.idf, w.ord ROWS UNBOUNDED PRECEDING) < ${corpus.minCoverage}::float8 * ${total}) AS essential
              FROM ${weights} w
          ) e
      )`,
      sql`${candidates} AS (${large ? byIndex(request, names, corpus.matchesPerWord) : rowByRow(request, names, corpus.maxCorpus)})`,
      sql`${hits} AS MATERIALIZED (
        SELECT id, session_id, turn_seq, created_at, (row_number() OVER (ORDER BY score DESC, id))::int AS rank,
               NULL::float8 AS similarity, (matched / total)::float8 AS coverage, NULL::text AS via FROM (
          SELECT c.*, q.total,
                 c.matched * (${sql.raw(String(BM25_K1))} + 1) / (1 + ${sql.raw(String(BM25_K1))} * (1 - ${sql.raw(String(BM25_B))} + ${sql.raw(String(BM25_B))} * c.length / k.avg_len)) AS score
            FROM ${candidates} c CROSS JOIN ${query} q CROSS JOIN ${names.corpus} k
           WHERE c.matched >= ${corpus.minCoverage}::float8 * q.total
           ORDER BY score DESC, id
           LIMIT ${request.pool}
        ) scored
      )`,
    ],
    hits,
    settings: { jit: "off" },
    report: statistics.report,
    accept(report) {
      const answer = report as { large?: boolean; n?: number; avg_len?: number; terms?: { lexeme: string; df: number }[] } | null;
      if (!large) return answer?.large !== true;
      const terms = answer?.terms ?? [];
      if (terms.length > 0) corpus.remember({ n: Number(answer?.n), avgLength: Number(answer?.avg_len), terms });
      return true;
    },
  };
}

type Names = Record<"lexemes" | "corpus" | "terms" | "weights" | "query" | "candidates" | "hits", SQL>;

/** `count(*)` of the query's words, for the plan to branch on as `rankByText` does on `lexemes.length`. */
const wordCount = (names: Names) => sql`(SELECT count(*) FROM ${names.lexemes})`;

/**
 * A corpus not known to be large, as `smallCorpusStatistics` counts it: its first `maxCorpus` rows
 * read once, each word's document frequency counted over them (past `MAX_QUERY_WORDS` words, each
 * row's words looked up among the query's instead, as `wordFrequencies` does).
 */
function smallCorpus(request: PlanRequest, names: Names, maxCorpus: number) {
  const rows = request.relation("rows");
  const { lexemes, corpus, terms } = names;
  return {
    relations: [
      sql`${rows} AS MATERIALIZED (SELECT ${m.contentTsv} FROM memories m WHERE ${request.visible} LIMIT ${maxCorpus})`,
      sql`${corpus} AS MATERIALIZED (
        SELECT count(*)::float8 AS n, coalesce(nullif(avg(length(content_tsv))::float8, 0), 1) AS avg_len FROM ${rows}
      )`,
      sql`${terms} AS MATERIALIZED (
        SELECT l.lexeme, l.ord, l.query, (SELECT count(*) FROM ${rows} r WHERE r.content_tsv @@ l.query)::float8 AS df
          FROM ${lexemes} l WHERE ${wordCount(names)} <= ${MAX_QUERY_WORDS}
        UNION ALL
        SELECT l.lexeme, l.ord, l.query, coalesce(f.df, 0)::float8 AS df
          FROM ${lexemes} l LEFT JOIN (${wordFrequencies(rows, lexemes)}) f ON f.lexeme = l.lexeme
         WHERE ${wordCount(names)} > ${MAX_QUERY_WORDS}
      )`,
    ],
    // Large after all: recall runs channel by channel, and that ranking counts it for the cache.
    report: sql`json_build_object('large', (SELECT n FROM ${corpus}) >= ${maxCorpus} AND ${wordCount(names)} > 0)`,
  };
}

/**
 * A corpus the cache knows to be large, as `rankByText` ranks it: its size and mean length from the
 * cache; of a long query the `MAX_QUERY_WORDS` words `wordsToCount` picks; each word's frequency
 * from the cache, or counted through the word index up to `exactUpTo` and estimated past it from
 * the newest memories (`corpusStatistics`).
 */
function largeCorpus(request: PlanRequest, names: Names, known: KnownStatistics) {
  const sample = request.relation("sample");
  const words = request.relation("words");
  const { lexemes, corpus, terms } = names;
  const { exactUpTo } = DEFAULT_COUNT_LIMITS;
  const knownDf = sql`${JSON.stringify(Object.fromEntries(known.df))}::jsonb`;
  return {
    relations: [
      sql`${corpus} AS MATERIALIZED (SELECT ${known.n}::float8 AS n, ${known.avgLength}::float8 AS avg_len)`,
      sql`${sample} AS MATERIALIZED (
        SELECT ${m.contentTsv} FROM memories m WHERE ${request.visible} ORDER BY ${m.createdAt} DESC NULLS LAST LIMIT ${DEFAULT_COUNT_LIMITS.sample}
      )`,
      // A long query's words to count: the rarest in the sample, then those it lacks, then those too common to weigh.
      sql`${words} AS MATERIALIZED (
        SELECT lexeme, ord, query FROM ${lexemes} WHERE ${wordCount(names)} <= ${MAX_QUERY_WORDS}
        UNION ALL
        SELECT lexeme, ord, query FROM (
          SELECT l.lexeme, l.ord, l.query FROM ${lexemes} l LEFT JOIN (${wordFrequencies(sample, lexemes)}) f ON f.lexeme = l.lexeme
           WHERE ${wordCount(names)} > ${MAX_QUERY_WORDS}
           ORDER BY CASE WHEN f.df IS NULL THEN 1 WHEN f.df <= (SELECT count(*) FROM ${sample}) * ${MAX_DOCUMENT_SHARE}::float8 THEN 0 ELSE 2 END,
                    coalesce(f.df, 0), l.lexeme COLLATE "C"
           LIMIT ${MAX_QUERY_WORDS}
        ) counted
      )`,
      sql`${terms} AS MATERIALIZED (
        SELECT w.lexeme, w.ord, w.query,
               coalesce((${knownDf} ->> w.lexeme)::float8,
                        CASE WHEN b.matches < ${exactUpTo} THEN b.matches::float8
                             ELSE greatest(${exactUpTo}::float8, c.n * (
                               SELECT avg((s.content_tsv @@ w.query)::int)::float8 FROM ${sample} s))
                        END) AS df
          FROM ${words} w CROSS JOIN ${corpus} c
          LEFT JOIN LATERAL (
            SELECT count(*) AS matches FROM (
              SELECT 1 FROM memories m
               WHERE (${knownDf} ->> w.lexeme) IS NULL AND ${request.visible}
                 AND ${wordMatch(sql`w.query`, known.n >= WORD_INDEX_MIN_CORPUS)}
               LIMIT ${exactUpTo}
            ) matching
          ) b ON true
      )`,
    ],
    report: sql`(SELECT json_build_object('n', c.n, 'avg_len', c.avg_len,
                   'terms', (SELECT coalesce(json_agg(json_build_object('lexeme', lexeme, 'df', df) ORDER BY ord), '[]'::json) FROM ${terms}))
                   FROM ${corpus} c)`,
  };
}

/** How many of `rows` (a relation with `content_tsv`) hold each query word: each row's words looked up among the query's. */
const wordFrequencies = (rows: SQL, lexemes: SQL) =>
  sql`SELECT word.lexeme, count(*)::float8 AS df FROM ${rows} r, unnest(r.content_tsv) AS word
       WHERE word.lexeme IN (SELECT lexeme FROM ${lexemes}) GROUP BY word.lexeme`;

/**
 * The columns of a candidate: its row, length, and the weight of the query's words it holds,
 * summed slot by slot in the query's order (an empty slot adds 0).
 */
function candidateColumns(): SQL {
  const slots = Array.from(
    { length: MAX_QUERY_WORDS },
    (_, index) =>
      sql`CASE WHEN (${m.contentTsv} @@ q.queries[${sql.raw(String(index + 1))}]) IS TRUE THEN q.idfs[${sql.raw(String(index + 1))}] ELSE 0 END`,
  );
  return sql`${m.id}, ${m.sessionId}, ${TURN_SEQ} AS turn_seq, ${m.createdAt}, length(${m.contentTsv}) AS length, (${sql.join(slots, sql` + `)}) AS matched`;
}

/** A small corpus's candidates: its rows holding an essential word, the match written so the word index cannot serve it. */
function rowByRow(request: PlanRequest, names: Names, maxCorpus: number): SQL {
  return sql`SELECT ${candidateColumns()} FROM ${names.query} q CROSS JOIN memories m
              WHERE q.essential IS NOT NULL AND (SELECT n FROM ${names.corpus}) < ${maxCorpus}
                AND ${request.visible} AND (${m.contentTsv} @@ ANY (q.essential)) IS TRUE`;
}

/** A large corpus's candidates: each essential word's matches through the word index, at most `matchesPerWord` each, a memory once. */
function byIndex(request: PlanRequest, names: Names, matchesPerWord: number): SQL {
  return sql`SELECT DISTINCT c.* FROM ${names.query} q CROSS JOIN LATERAL unnest(q.essential) AS e(query)
              CROSS JOIN LATERAL (
                SELECT ${candidateColumns()} FROM memories m
                 WHERE ${request.visible} AND ${wordMatch(sql`e.query`, true)}
                 LIMIT ${matchesPerWord}
              ) c`;
}
