import type { Database } from "../db/database.js";
import { findUnembedded, storeEmbeddings, type UnembeddedScope } from "../memory/write/embeddings.js";
import type { Embedder } from "../providers/types.js";
import { withUsageScope } from "../providers/usage-scope.js";

export interface EmbedWrittenOutcome {
  embedded: number;
  /** Rows may be left (a full batch was found): the backfill should look. */
  remaining: boolean;
}

/**
 * One batch of the memories a stage has just written, embedded by that stage instead of waiting for
 * the backfill's debounce: the vectors follow the rows as they are derived. The scope keeps it to what
 * the stage writes (reflection: everything but episodes, which replay writes with their vectors), and
 * one reflection of a user runs at a time, so two runs never embed the same rows; only rows still
 * without this model's vector are filled, so a retried batch never overwrites one. Metered as the
 * backfill it stands in for.
 *
 * @example
 * const { remaining } = await embedWritten(deps, { appId, userId, reflected: true }, 64);
 */
export async function embedWritten(
  deps: { db: Database; embedder: Embedder },
  scope: UnembeddedScope,
  batchSize: number,
): Promise<EmbedWrittenOutcome> {
  const rows = await findUnembedded(deps.db, deps.embedder.model, batchSize, scope);
  if (rows.length === 0) return { embedded: 0, remaining: false };
  const vectors = await withUsageScope({ appId: scope.appId, userId: scope.userId, stage: "backfill" }, () =>
    deps.embedder.embed(rows.map((row) => row.content)),
  );
  const embedded = await storeEmbeddings(
    deps.db,
    deps.embedder.model,
    rows.map((row, index) => ({ id: row.id, vector: vectors[index] as number[] })),
  );
  return { embedded, remaining: rows.length === batchSize };
}
