import type { Database } from "../db/database.js";
import { pipelineStatus } from "../executor/run-store.js";
import { type PipelineView, readBacklog, settledStatus } from "./pipeline-view.js";

/** Pipeline status from the embedded executor's run table plus the derived backlog. */
export function executorPipelineView(db: Database, embeddingModel: string): PipelineView {
  return {
    async status(scope) {
      const [runs, backlog] = await Promise.all([pipelineStatus(db, scope.userId), readBacklog(db, scope, embeddingModel)]);
      return settledStatus(scope.userId, "embedded-executor", runs, backlog);
    },
  };
}
