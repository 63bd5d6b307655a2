import { type SQL, sql } from "drizzle-orm";
import { type Database, queryRows } from "../../../../db/database.js";
import { m } from "../../../visibility.js";

/** What BM25 needs to know about the memories a query searches. */
export interface CorpusStatistics {
  /** How many memories the query may see. */
  n: number;
  /** Mean number of distinct words per memory (normalises for length). */
  avgLength: number;
  /** The query's words (English lexemes) and how many of those memories hold each. */
  terms: { lexeme: string; df: number }[];
}

/** What a cache knows of one corpus: its size and mean length, and the counts of its common words. */
export interface KnownStatistics {
  n: number;
  avgLength: number;
  df: ReadonlyMap<string, number>;
}

interface Remembered extends KnownStatistics {
  df: Map<string, number>;
  until: number;
}

/**
 * BM25's corpus statistics of large corpora, kept for a few minutes. Counting them is most of a
 * recall at scale: on a real Postgres with 100K memories for one user, counting the corpus and each
 * common query word took many times as long as the vector arm. Both
 * move slowly for a large corpus (a thousand new memories change an idf by a few percent), so a
 * corpus of at least `minCorpus` memories keeps its size and its common words' counts for `ttlMs`.
 * A rare word is always counted (through the GIN index that is cheap), so a word the user has just
 * used for the first time is found at once; small corpora are counted every time.
 *
 * Per process: instances of the service each keep their own, which only means each counts once.
 */
export class CorpusStatisticsCache {
  private readonly entries = new Map<string, Remembered>();

  constructor(
    private readonly options: { ttlMs: number; minCorpus: number; minDocumentFrequency: number; maxEntries: number } = {
      ttlMs: 5 * 60_000,
      minCorpus: 2_000,
      minDocumentFrequency: 100,
      maxEntries: 10_000,
    },
    private readonly now: () => number = Date.now,
  ) {}

  /** What is known of this corpus, while still fresh. */
  lookup(key: string): KnownStatistics | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps what was counted, when the corpus is large enough for it to be worth keeping. */
  remember(key: string, counted: CorpusStatistics): void {
    if (counted.n < this.options.minCorpus) {
      this.entries.delete(key);
      return;
    }
    const known = this.entries.get(key);
    const entry =
      known && known.until > this.now()
        ? known
        : { n: counted.n, avgLength: counted.avgLength, df: new Map<string, number>(), until: this.now() + this.options.ttlMs };
    for (const term of counted.terms) if (term.df >= this.options.minDocumentFrequency) entry.df.set(term.lexeme, term.df);
    if (entry !== known) {
      this.entries.delete(key);
      // The oldest entry goes first: a Map iterates in insertion order.
      const oldest = this.entries.size >= this.options.maxEntries ? this.entries.keys().next().value : undefined;
      if (oldest !== undefined) this.entries.delete(oldest);
      this.entries.set(key, entry);
    }
  }
}

/** How far a word's document frequency is counted, and how large a sample estimates it beyond. */
export interface CountLimits {
  /** A word in fewer memories than this is counted exactly. */
  exactUpTo: number;
  /** The newest memories in which a more common word's share is measured. */
  sample: number;
}

/**
 * Counting a common word was most of a first query on a large corpus (a word in 5% of 100K
 * memories on a real Postgres, warm or cold caches): every match is checked on the heap. Past
 * `exactUpTo` matches the count stops, and the share of the newest `sample` memories holding the
 * word, times the corpus size, estimates it. Its relative standard error is 22% for a word in 1%
 * of the corpus and 10% at 5%; idf is a logarithm, so an error of 22% in df moves it by 0.2 (of
 * about 4.6 at 1%). The newest memories stand for the corpus: a word common only long ago is
 * floored at `exactUpTo`, as rare as the count could tell.
 */
export const DEFAULT_COUNT_LIMITS: CountLimits = { exactUpTo: 1_000, sample: 2_000 };

/**
 * Below this many memories a user's words are matched on their own rows, not through the GIN
 * index. That index holds every user's words: a word in 5% of 300K memories (all users) gave a
 * bitmap of 15K rows to intersect with the user's 1,000, most of the statement's time, and a recall
 * does it for each query word in the statistics and again in the ranking. Reading 1,000 rows of
 * the user's own through the (app, user) index costs a fraction of that.
 */
export const WORD_INDEX_MIN_CORPUS = 10_000;

/**
 * `m.content_tsv @@ query`, written so the GIN index serves it (`byIndex`), or so it cannot and
 * the plan reads the user's rows (`IS TRUE` is not an operator the index knows).
 */
export function wordMatch(tsquery: SQL, byIndex: boolean): SQL {
  return byIndex ? sql`${m.contentTsv} @@ ${tsquery}` : sql`(${m.contentTsv} @@ ${tsquery}) IS TRUE`;
}

/** How many memories `visible` selects, to choose how words are matched before the statistics are counted. */
export async function countVisible(db: Pick<Database, "execute">, visible: SQL): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::float8 AS n FROM memories m WHERE ${visible}`);
  return Number(row?.n ?? 0);
}

/**
 * Corpus size, mean length and each query word's document frequency over the memories `visible`
 * selects, in one statement; what `known` already holds is taken from it instead of counted. A
 * word in `limits.exactUpTo` memories or more is estimated from a sample of the newest ones.
 */
export async function corpusStatistics(
  db: Pick<Database, "execute">,
  visible: SQL,
  /** The query's words (`queryLexemes`). */
  lexemes: string[],
  known: KnownStatistics | undefined,
  limits: CountLimits = DEFAULT_COUNT_LIMITS,
  /** The corpus size when the caller has counted it already. */
  counted?: number,
): Promise<CorpusStatistics> {
  const n = known?.n ?? counted;
  const byIndex = n === undefined || n >= WORD_INDEX_MIN_CORPUS;
  const knownDf = JSON.stringify(Object.fromEntries(known?.df ?? []));
  const rows = await queryRows<{ lexeme: string | null; n: number; avg_len: number; df: number | null }>(
    db,
    sql`WITH terms AS (
          SELECT DISTINCT value AS lexeme FROM jsonb_array_elements_text(${JSON.stringify(lexemes)}::jsonb)
        ),
        -- Materialized: n is read twice below, and an inlined CTE would count the corpus twice.
        corpus AS MATERIALIZED (
          SELECT coalesce(${n ?? null}::float8, (SELECT count(*) FROM memories m WHERE ${visible})::float8) AS n,
                 -- The average length from a sample, since it only scales normalisation.
                 coalesce(${known?.avgLength ?? null}::float8,
                          (SELECT avg(length(s.content_tsv)) FROM (SELECT ${m.contentTsv} FROM memories m WHERE ${visible} LIMIT 1000) s)::float8,
                          1) AS avg_len
        ),
        -- The newest memories, in which a common word's share is measured: read once however many
        -- words need it, and never when none does (a CTE is computed on its first scan). NULLS
        -- LAST as in memories_user_time_idx, which then serves it.
        sample AS MATERIALIZED (
          SELECT ${m.contentTsv} FROM memories m WHERE ${visible} ORDER BY ${m.createdAt} DESC NULLS LAST LIMIT ${limits.sample}
        )
        SELECT t.lexeme, c.n, c.avg_len,
               coalesce((${knownDf}::jsonb ->> t.lexeme)::float8,
                        CASE WHEN b.matches < ${limits.exactUpTo} THEN b.matches::float8
                             -- Common: its share of the sample, never below what was counted.
                             ELSE greatest(${limits.exactUpTo}::float8, c.n * (
                               SELECT avg((s.content_tsv @@ quote_literal(t.lexeme)::tsquery)::int)::float8 FROM sample s))
                        END) AS df
          FROM corpus c
          LEFT JOIN terms t ON true
          -- A document frequency from the GIN index, counted up to exactUpTo, for each word not known yet.
          LEFT JOIN LATERAL (
            SELECT count(*) AS matches FROM (
              SELECT 1 FROM memories m
               WHERE (${knownDf}::jsonb ->> t.lexeme) IS NULL AND ${visible} AND ${wordMatch(sql`quote_literal(t.lexeme)::tsquery`, byIndex)}
               LIMIT ${limits.exactUpTo}
            ) matching
          ) b ON true`,
  );
  const first = rows[0];
  return {
    n: Number(first?.n ?? 0),
    avgLength: Number(first?.avg_len ?? 1),
    terms: rows.flatMap((row) => (row.lexeme === null ? [] : [{ lexeme: row.lexeme, df: Number(row.df ?? 0) }])),
  };
}
