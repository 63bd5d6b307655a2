import type { SQL } from "drizzle-orm";
import type { Database } from "../../../db/database.js";
import type { VisibilityFilters } from "../../visibility.js";
import type { RankedHit } from "../fusion.js";
import type { StatementKind } from "../statement-kinds.js";

/** A query's vector, the model that made it and, once that model's HNSW index is valid, its dimension. */
export interface QueryVector {
  values: number[];
  model: string;
  annDimensions?: number;
}

/** One recall as every engine of every channel sees it. */
export interface RecallRequest extends VisibilityFilters {
  db: Database;
  appId: string;
  userId: string;
  text: string;
  /** The memories the query may see, as SQL over `memories m` (`visibleAt`). */
  visible: SQL;
  /** Hits each channel returns at most. */
  pool: number;
  /** The query's vector; awaited only by the engines that need it, so text ranks while the query is embedded. */
  vector: PromiseLike<QueryVector | undefined>;
  /** The query's words as `content_tsv` holds them: parsed once per recall, by whichever engine asks first. */
  lexemes(): Promise<string[]>;
  /** The kinds of statement the question asks about (a taste, a habit…), for the kind channel; none when absent. */
  kinds?: readonly StatementKind[];
}

/** One engine's ranking for one channel. */
export interface Ranking {
  hits: RankedHit[];
  /** The similarities are estimates (8-bit vectors): the exact ones are read with the rows. */
  approximate?: boolean;
}

/** One recall as the engines of a composed plan see it: the query's vector is there (or is not: text only). */
export interface PlanRequest extends Omit<RecallRequest, "db" | "vector" | "lexemes"> {
  vector: QueryVector | undefined;
  /** A relation of this channel in the statement, by a name local to the engine: `relation("hits")` is `text_hits` in the text channel. */
  relation(local: string): SQL;
}

/**
 * An engine's ranking as part of one statement: relations (common table expressions) that end in
 * the hits, which the plan fuses with the other channels' and reads the rows of, all at once.
 */
export interface RankingPlan {
  /** The relations it defines, in order, each `name AS (…)` with a name from `request.relation`. */
  relations: SQL[];
  /**
   * The relation of the hits, best first, at most the pool: `id`, `session_id`, `turn_seq`,
   * `created_at` (timestamptz), `rank` (1 = best), `similarity`, `coverage` and `via` (null where
   * the engine has none).
   */
  hits: SQL;
  /** Settings the statement runs with (the HNSW scan's, `jit`); two engines may not want the same one differently. */
  settings?: Record<string, string>;
  /** A JSON value the statement returns to the engine: what it counted (for its cache), or that it could not rank. */
  report?: SQL;
  /** Reads `report` back; false when the plan could not rank after all (a corpus larger than it planned for): recall then runs channel by channel. */
  accept?(report: unknown): boolean;
}

/**
 * A recall engine: ranks the memories a request may see for one channel, best first, at most
 * `request.pool`. Undefined means it cannot answer this request (no valid index of the query's
 * model, a copy still loading, a question about the past it holds no rows for): the channel's
 * next engine does. Engines only read; the memory store's writers and its change log keep them current.
 *
 * An engine that ranks in SQL can also offer its ranking as part of one statement (`plan`, same
 * contract: undefined when it cannot answer): when every engine of every channel can, a server's
 * recall is one statement, one round trip (`plan/composed-recall.ts`).
 *
 * @example
 * const engine: RecallIndex = { name: "sql-binary", rank: async (request) => ({ hits: await nearestByBits(request) }) };
 */
export interface RecallIndex {
  /** For the bench and logs: "resident-vectors", "sql-hnsw", "sql-binary", "resident-words", "sql-bm25"… */
  readonly name: string;
  rank(request: RecallRequest): Promise<Ranking | undefined>;
  plan?(request: PlanRequest): RankingPlan | undefined;
}

/**
 * One ranked list of the fusion: "vector", "text", or another (an entity graph's), answered by
 * the first of its engines able to. The name is the one the receipts give the ranking.
 */
export interface RecallChannel {
  readonly name: string;
  readonly engines: readonly RecallIndex[];
}

/** A channel's ranking, and which engine gave it ("none" when no engine could). */
export interface ChannelRanking extends Ranking {
  channel: string;
  engine: string;
}

/** The channel's ranking from the first engine that answers the request; empty when none can. */
export async function rankChannel(channel: RecallChannel, request: RecallRequest): Promise<ChannelRanking> {
  for (const engine of channel.engines) {
    const ranking = await engine.rank(request);
    if (ranking) return { channel: channel.name, engine: engine.name, ...ranking };
  }
  return { channel: channel.name, engine: "none", hits: [] };
}
