import type { RecallChannel } from "./recall-index.js";
import { residentIndexes } from "./resident/resident-index.js";
import type { ResidentMemories } from "./resident/resident-memories.js";
import { sqlBinaryIndex } from "./sql-binary.js";
import { type SqlBm25Options, sqlBm25Index } from "./sql-bm25/sql-bm25-index.js";
import { sqlHnswIndex } from "./sql-hnsw.js";

/** The engines a service recalls with, and what they keep between queries. */
export interface RecallEngines extends SqlBm25Options {
  /** Embedded: each queried user's memories in this process, which answer both channels of a query about the present. */
  resident?: ResidentMemories;
  /** More ranked lists fused with the vector and text channels (an entity graph's), each named for the receipts. */
  channels?: readonly RecallChannel[];
}

/**
 * The channels of every recall, each with its engines in the order they are asked:
 * - vector: the model's HNSW index (real Postgres, once valid), the resident copy (embedded),
 *   else binary-quantised candidates re-ranked exactly in SQL;
 * - text: the resident copy (embedded), else BM25 in SQL;
 * - then `engines.channels`, as given.
 *
 * @example
 * recallChannels({ resident, minTextCoverage: 0.3 }).map((channel) => channel.name); // ["vector", "text"]
 */
export function recallChannels(engines: RecallEngines): RecallChannel[] {
  const resident = engines.resident ? residentIndexes(engines.resident, engines.minTextCoverage) : undefined;
  return [
    { name: "vector", engines: [sqlHnswIndex, ...(resident ? [resident.vectors] : []), sqlBinaryIndex] },
    { name: "text", engines: [...(resident ? [resident.words] : []), sqlBm25Index(engines)] },
    ...(engines.channels ?? []),
  ];
}
