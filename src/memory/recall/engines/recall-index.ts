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

/**
 * A recall engine: ranks the memories a request may see for one channel, best first, at most
 * `request.pool`. Undefined means it cannot answer this request (no valid index of the query's
 * model, a copy still loading, a question about the past it holds no rows for): the channel's
 * next engine does. Engines only read; the memory store's writers and its change log keep them current.
 *
 * @example
 * const engine: RecallIndex = { name: "sql-binary", rank: async (request) => ({ hits: await nearestByBits(request) }) };
 */
export interface RecallIndex {
  /** For the bench and logs: "resident-vectors", "sql-hnsw", "sql-binary", "resident-words", "sql-bm25"… */
  readonly name: string;
  rank(request: RecallRequest): Promise<Ranking | undefined>;
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
