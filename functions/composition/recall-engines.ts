import type { Env } from "../../src/config/env.js";
import { connectDatabase } from "../../src/db/connect.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { type AnnService, startAnnService } from "../../src/memory/recall/ann-service.js";
import { openChangeLog } from "../../src/memory/recall/engines/resident/change-log.js";
import { ResidentMemories } from "../../src/memory/recall/engines/resident/resident-memories.js";
import type { Embedder } from "../../src/providers/types.js";
import { durationMs } from "../../src/util/duration.js";
import type { Logger } from "../../src/util/logger.js";
import { databaseOptions } from "../settings.js";

/** The recall engines a Node process runs beside the database (ANN_INDEX=auto); none with ANN_INDEX=off. */
export interface RecallEngines {
  /** Embedded: in-process copies of queried users' memories (vectors and words). */
  resident: ResidentMemories | undefined;
  /** A real Postgres: the HNSW indexes (the model's, and the largest users' own) and their upkeep. */
  ann: AnnService | undefined;
}

/**
 * Starts the recall engine that suits the database: resident copies on PGlite (with the change log
 * they catch up from), HNSW indexes built in the background on a server.
 *
 * @example
 * const { resident, ann } = await startRecallEngines(env, database, providers.embedder, logger);
 */
export async function startRecallEngines(env: Env, database: DatabaseHandle, embedder: Embedder, logger: Logger): Promise<RecallEngines> {
  // Any embedded database drops the deletions an earlier process logged: no copy outlives its process.
  if (database.kind === "pglite") await openChangeLog(database.db);
  if (env.ANN_INDEX !== "auto") return { resident: undefined, ann: undefined };
  const target = { model: embedder.model, dimensions: embedder.dimensions };
  if (database.kind === "pglite") {
    const resident = new ResidentMemories({ ...target, maxBytes: env.RESIDENT_MEMORIES_MAX_MB * 2 ** 20, log: logger.warn });
    return { resident, ann: undefined };
  }
  const ann = await startAnnService(database.db, target, logger.info, {
    // A connection of its own per build, so the build's memory setting is the build's.
    connect: () => connectDatabase({ ...databaseOptions(env), poolMax: 1, poolName: "index-build" }, logger.warn),
    memory: env.ANN_INDEX_BUILD_MEMORY,
    users: {
      minMemories: env.ANN_USER_INDEX_MIN_MEMORIES,
      maxIndexes: env.ANN_USER_INDEX_MAX,
      intervalMs: durationMs(env.ANN_USER_INDEX_INTERVAL),
    },
  });
  return { resident: undefined, ann };
}
