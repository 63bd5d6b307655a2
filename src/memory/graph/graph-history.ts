import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/database.js";
import { type GraphOperation, graphHistory } from "../../db/schema/index.js";

/** Who changes a user's graph, when, and as whom (the pipeline stage or the API). */
export interface GraphWriter {
  tx: Queryable;
  appId: string;
  userId: string;
  actor: string;
  /** The runtime's clock reading: system time of the rows and their history. */
  now: Date;
}

/** One entry of the graph's audit trail. */
export async function writeGraphHistory(
  writer: GraphWriter,
  entry: {
    entityId?: string | null;
    relationId?: string | null;
    operation: GraphOperation;
    before?: unknown;
    after?: unknown;
    reason?: string;
  },
): Promise<void> {
  await writer.tx.insert(graphHistory).values({
    id: randomUUID(),
    appId: writer.appId,
    userId: writer.userId,
    entityId: entry.entityId ?? null,
    relationId: entry.relationId ?? null,
    operation: entry.operation,
    actor: writer.actor,
    before: entry.before ?? null,
    after: entry.after ?? null,
    reason: entry.reason ?? null,
    createdAt: writer.now,
  });
}
