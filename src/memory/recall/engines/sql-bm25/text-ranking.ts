import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../../../db/database.js";
import { compareCodeUnits } from "../../../../util/compare-code-units.js";
import { m } from "../../../visibility.js";
import type { RankedHit } from "../../fusion.js";
import { BM25_B, BM25_K1, MAX_DOCUMENT_SHARE, MAX_QUERY_WORDS } from "../bm25.js";
import { type CorpusStatistics, wordMatch } from "./corpus-statistics.js";

type Queryable = Pick<Database, "execute">;

/** The query's words as the memories' `content_tsv` holds them (English lexemes). */
export async function queryLexemes(db: Queryable, text: string): Promise<string[]> {
  const [parsed] = await queryRows<{ lexemes: string[] }>(db, sql`SELECT tsvector_to_array(to_tsvector('english', ${text})) AS lexemes`);
  return parsed?.lexemes ?? [];
}

/** A lexeme as a tsquery matching it alone: a constant the planner folds once, not once per row. */
const lexemeQuery = (lexeme: string) => sql`quote_literal(${lexeme})::tsquery`;

/**
 * A small corpus's BM25 statistics in one pass over its rows: its size, mean length and every
 * query word's document frequency, counted together. Counting each word in a pass of its own (as
 * a large corpus does through the word index) read a 2,000-memory user's rows once per word: for
 * four words on a real Postgres that was several times slower than this one pass. Undefined when the memories
 * `visible` selects reach `maxCorpus`: the corpus is large, and only the first `maxCorpus` rows
 * were read.
 *
 * Past `MAX_QUERY_WORDS` words, each row's words are looked up among the query's instead
 * (`wordFrequencies`): the same pass, its cost bounded by the corpus however long the query.
 */
export async function smallCorpusStatistics(
  db: Queryable,
  visible: SQL,
  lexemes: string[],
  maxCorpus: number,
): Promise<CorpusStatistics | undefined> {
  const rows = sql`SELECT ${m.contentTsv} FROM memories m WHERE ${visible} LIMIT ${maxCorpus}`;
  if (lexemes.length > MAX_QUERY_WORDS) {
    const counted = await wordFrequencies(db, rows, lexemes);
    if (counted.n >= maxCorpus) return undefined;
    return { n: counted.n, avgLength: counted.avgLength, terms: lexemes.map((lexeme) => ({ lexeme, df: counted.df.get(lexeme) ?? 0 })) };
  }
  const counts = lexemes.map((lexeme) => sql`count(*) FILTER (WHERE c.content_tsv @@ ${lexemeQuery(lexeme)})`);
  const [row] = await queryRows<{ n: number; avg_len: number | null; df: number[] }>(
    db,
    sql`SELECT count(*)::float8 AS n, avg(length(c.content_tsv))::float8 AS avg_len,
               ARRAY[${counts.length > 0 ? sql.join(counts, sql`, `) : sql``}]::float8[] AS df
          FROM (${rows}) c`,
  );
  const n = Number(row?.n ?? 0);
  if (n >= maxCorpus) return undefined;
  return {
    n,
    avgLength: Number(row?.avg_len ?? 1) || 1,
    terms: lexemes.map((lexeme, index) => ({ lexeme, df: Number(row?.df[index] ?? 0) })),
  };
}

/**
 * How many of `rows` (a statement selecting `content_tsv`) hold each of `lexemes`, with their
 * number and mean length: every row's words are looked up among the query's, so the cost is the
 * rows' words whatever the number of query words (cheaper than a `count(*) FILTER` per word once a
 * query has a few dozen words).
 */
async function wordFrequencies(
  db: Queryable,
  rows: SQL,
  lexemes: string[],
): Promise<{ n: number; avgLength: number; df: Map<string, number> }> {
  const [row] = await queryRows<{ n: number; avg_len: number | null; df: Record<string, number> | null }>(
    db,
    sql`WITH c AS MATERIALIZED (${rows})
        SELECT (SELECT count(*) FROM c)::float8 AS n, (SELECT avg(length(c.content_tsv)) FROM c)::float8 AS avg_len,
               (SELECT jsonb_object_agg(w.lexeme, w.df) FROM (
                  SELECT word.lexeme, count(*)::float8 AS df FROM c, unnest(c.content_tsv) AS word
                   WHERE word.lexeme IN (SELECT jsonb_array_elements_text(${JSON.stringify(lexemes)}::jsonb))
                   GROUP BY word.lexeme
                ) w) AS df`,
  );
  return {
    n: Number(row?.n ?? 0),
    avgLength: Number(row?.avg_len ?? 1) || 1,
    df: new Map(Object.entries(row?.df ?? {}).map(([lexeme, df]) => [lexeme, Number(df)])),
  };
}

/**
 * The `MAX_QUERY_WORDS` of a long query's words to count in a large corpus, where each word is
 * counted through the word index (one index read per word): the rarest
 * among the newest `sample` memories first, then those the sample lacks (rare, or absent), then
 * those too common to weigh (`MAX_DOCUMENT_SHARE`); of equal standing in code-unit order. A word
 * the user used only long ago can lose its place to recent ones: the price of a bounded cost.
 */
export async function wordsToCount(db: Queryable, visible: SQL, lexemes: string[], sample: number): Promise<string[]> {
  if (lexemes.length <= MAX_QUERY_WORDS) return lexemes;
  const counted = await wordFrequencies(
    db,
    sql`SELECT ${m.contentTsv} FROM memories m WHERE ${visible} ORDER BY ${m.createdAt} DESC NULLS LAST LIMIT ${sample}`,
    lexemes,
  );
  const standing = (lexeme: string): [number, number] => {
    const df = counted.df.get(lexeme);
    if (df === undefined) return [1, 0];
    return df <= counted.n * MAX_DOCUMENT_SHARE ? [0, df] : [2, df];
  };
  return lexemes
    .map((lexeme) => ({ lexeme, standing: standing(lexeme) }))
    .sort((a, b) => a.standing[0] - b.standing[0] || a.standing[1] - b.standing[1] || compareCodeUnits(a.lexeme, b.lexeme))
    .slice(0, MAX_QUERY_WORDS)
    .map((word) => word.lexeme);
}

/** A query word as the ranking weighs it; a memory must hold an essential one to be a candidate (`essentialTerms`). */
export interface WordWeight {
  lexeme: string;
  idf: number;
  essential: boolean;
}

export interface TextRanking {
  visible: SQL;
  weights: WordWeight[];
  avgLength: number;
  minCoverage: number;
  pool: number;
  /** A turn's seq in its session, of the row `m`. */
  turnSeq: SQL;
  /**
   * Large corpus: each essential word's matches come through the word index, at most this many
   * per word (which ones is up to the plan). Undefined for a small corpus: one pass over its rows.
   */
  matchesPerWord?: number;
}

/**
 * The BM25 ranking (term frequency 1, as everywhere) of the memories holding an essential word,
 * each scored by the idf of all the query words it holds, the best `pool` of those reaching
 * `minCoverage` of the query's idf. Each word is a constant of the statement, so a candidate is
 * scored where it is read: no join of candidates and words, no grouping by memory (a third of the
 * statement's time at 100K memories).
 *
 * A small corpus is read in one pass over its rows, the match written so the word index cannot
 * serve it (its posting lists hold every user's memories); a large one through the index, word by
 * word, the candidates of several words merged.
 */
export async function rankByWords(db: Queryable, ranking: TextRanking): Promise<RankedHit[]> {
  const { visible, weights, avgLength, minCoverage, pool, turnSeq, matchesPerWord } = ranking;
  const essential = weights.filter((weight) => weight.essential);
  if (essential.length === 0) return [];
  const totalIdf = weights.reduce((sum, weight) => sum + weight.idf, 0);
  const byIndex = matchesPerWord !== undefined;
  const holds = (lexeme: string) => wordMatch(lexemeQuery(lexeme), byIndex);
  const matchedIdf = sql.join(
    weights.map((weight) => sql`CASE WHEN ${holds(weight.lexeme)} THEN ${weight.idf}::float8 ELSE 0 END`),
    sql` + `,
  );
  const columns = sql`${m.id}, ${m.sessionId}, ${turnSeq} AS turn_seq, ${m.createdAt}, length(${m.contentTsv}) AS length, (${matchedIdf}) AS matched`;
  const candidates = byIndex
    ? // UNION: a memory holding two essential words is found twice, and is one candidate.
      sql.join(
        essential.map(
          (weight) => sql`(SELECT ${columns} FROM memories m WHERE ${visible} AND ${holds(weight.lexeme)} LIMIT ${matchesPerWord})`,
        ),
        sql` UNION `,
      )
    : sql`SELECT ${columns} FROM memories m WHERE ${visible} AND (${sql.join(
        essential.map((weight) => holds(weight.lexeme)),
        sql` OR `,
      )})`;
  const k1 = sql.raw(String(BM25_K1));
  const b = sql.raw(String(BM25_B));
  return queryRows<RankedHit>(
    db,
    // created_at as text: it comes back exact (a Date would lose the microseconds).
    sql`SELECT id, session_id, turn_seq, created_at::text AS created_at, (row_number() OVER (ORDER BY score DESC, id))::int AS rank,
               (matched / ${totalIdf}::float8)::float8 AS coverage FROM (
          SELECT c.*, c.matched * (${k1} + 1) / (1 + ${k1} * (1 - ${b} + ${b} * c.length / ${avgLength}::float8)) AS score
            FROM (${candidates}) c
           WHERE c.matched >= ${minCoverage}::float8 * ${totalIdf}::float8
           ORDER BY score DESC, id
           LIMIT ${pool}
        ) scored`,
  );
}
