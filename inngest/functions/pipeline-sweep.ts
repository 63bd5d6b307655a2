import { cron } from "inngest";
import { findUnreflected, findUnreplayed, findUsersWithUnembedded } from "../../src/pipeline/backlog.js";
import type { PipelineClient } from "../client.js";
import { embeddingsRequested, reflectionRequested, sessionEventsAppended } from "../events.js";

const SWEEP_LIMIT = 500;

/**
 * The safety net behind "emit after commit": on a schedule, re-send what the data says is owed —
 * sessions with an unreplayed backlog, sessions due for reflection (ended, or asked for by
 * importance, a rebuild or a webhook) that were not reflected, users with unembedded memories.
 * Lost emits, crashed runs and exhausted retries all end up here; parked stages do not (they
 * wait for a retry). The functions are idempotent, so a redundant re-send costs one no-op run.
 */
export function createPipelineSweep(inngest: PipelineClient, settings: { sweepCron: string }) {
  return inngest.createFunction(
    { id: "pipeline-sweep", name: "Pipeline sweep", triggers: [cron(settings.sweepCron)], concurrency: { limit: 1 }, retries: 2 },
    async ({ step, deps }) => {
      const minAge = deps.settings.sweepMinAgeMs;
      const unreplayed = await step.run("find-unreplayed", () => findUnreplayed(deps.db, minAge, SWEEP_LIMIT));
      if (unreplayed.length > 0) {
        await step.sendEvent(
          "re-emit-appended",
          unreplayed.map((backlog) => sessionEventsAppended.create(backlog)),
        );
      }
      const unreflected = await step.run("find-unreflected", () => findUnreflected(deps.db, minAge, SWEEP_LIMIT));
      if (unreflected.length > 0) {
        await step.sendEvent(
          "re-request-reflection",
          unreflected.map((backlog) =>
            reflectionRequested.create({
              session_id: backlog.session_id,
              app_id: backlog.app_id,
              user_id: backlog.user_id,
              reason: "sweep",
            }),
          ),
        );
      }
      const users = await step.run("find-unembedded", () => findUsersWithUnembedded(deps.db, deps.embedder.model, minAge, SWEEP_LIMIT));
      if (users.length > 0) {
        await step.sendEvent(
          "re-request-embeddings",
          users.map((user) => embeddingsRequested.create(user)),
        );
      }
      return { unreplayed: unreplayed.length, unreflected: unreflected.length, users: users.length };
    },
  );
}
