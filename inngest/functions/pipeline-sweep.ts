import { cron } from "inngest";
import { findStaleBacklogs, findUsersWithUnembedded } from "../../src/memory/backlogs.js";
import type { PipelineClient } from "../client.js";
import { embeddingsRequested, sessionEventsAppended } from "../events.js";

const SWEEP_LIMIT = 500;

/**
 * The safety net behind "emit after commit": on a schedule, re-emit the events whose emit may
 * have been lost (sessions with an unreplayed backlog, users with unembedded memories). The
 * functions they trigger are idempotent, so a redundant emit costs one no-op run.
 */
export function createPipelineSweep(inngest: PipelineClient, settings: { sweepCron: string }) {
  return inngest.createFunction(
    { id: "pipeline-sweep", name: "Pipeline sweep", triggers: [cron(settings.sweepCron)], concurrency: { limit: 1 }, retries: 2 },
    async ({ step, deps }) => {
      const backlogs = await step.run("find-stale-backlogs", () => findStaleBacklogs(deps.db, deps.settings.sweepMinAgeMs, SWEEP_LIMIT));
      if (backlogs.length > 0) {
        await step.sendEvent("re-emit-appended", backlogs.map((backlog) => sessionEventsAppended.create(backlog)));
      }
      const users = await step.run("find-unembedded", () => findUsersWithUnembedded(deps.db, deps.embedder.model, SWEEP_LIMIT));
      if (users.length > 0) {
        await step.sendEvent("re-request-embeddings", users.map((user) => embeddingsRequested.create(user)));
      }
      return { backlogs: backlogs.length, users: users.length };
    },
  );
}
