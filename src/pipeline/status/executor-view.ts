import type { Database } from "../../db/database.js";
import { pipelineStatus } from "../../executor/run-store.js";
import { type PipelineView, statusWith } from "./pipeline-view.js";

/** Pipeline status from the embedded executor's run table plus the derived backlog. */
export function executorPipelineView(db: Database, embeddingModel: string): PipelineView {
  return {
    async status(scope) {
      return statusWith(db, scope, embeddingModel, "embedded-executor", await pipelineStatus(db, scope));
    },
  };
}
