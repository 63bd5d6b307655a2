import { cron } from "inngest";
import { findUnreflected, findUnreplayed, findUsersWithUnembedded } from "../../src/pipeline/backlog.js";
import { embeddingsRequested, reflectionRequested, sessionEventsAppended } from "../../src/pipeline/events.js";
import type { PipelineClient } from "../client.js";

const SWEEP_LIMIT = 500;

/**
 * The safety net behind "emit after commit": on a schedule, re-send what the data says is owed —
 * sessions with an unreplayed backlog, sessions due for reflection (ended, or asked for by
 * importance, a rebuild or a webhook) that were not reflected, users with unembedded memories.
 * Lost emits, crashed runs and exhausted retries all end up here; parked stages do not (they
 * wait for a retry). The functions are idempotent, so a redundant re-send costs one no-op run.
 *
 * Each step finds and sends in one go and memoizes only counts: memoized step data would
 * otherwise list users, and outlive their erasure. A step run twice after a crash sends twice,
 * which the idempotent functions absorb.
 */
export function createPipelineSweep(inngest: PipelineClient, settings: { sweepCron: string }) {
  return inngest.createFunction(
    { id: "pipeline-sweep", name: "Pipeline sweep", triggers: [cron(settings.sweepCron)], concurrency: { limit: 1 }, retries: 2 },
    async ({ step, deps }) => {
      const minAge = deps.settings.sweepMinAgeMs;
      const unreplayed = await step.run("re-send-unreplayed", async () => {
        const found = await findUnreplayed(deps.db, minAge, SWEEP_LIMIT);
        if (found.length > 0) await inngest.send(found.map((backlog) => sessionEventsAppended.create(backlog)));
        return found.length;
      });
      const unreflected = await step.run("re-send-unreflected", async () => {
        const found = await findUnreflected(deps.db, minAge, SWEEP_LIMIT);
        if (found.length > 0) {
          await inngest.send(
            found.map((backlog) =>
              reflectionRequested.create({
                session_id: backlog.session_id,
                app_id: backlog.app_id,
                user_id: backlog.user_id,
                reason: "sweep",
              }),
            ),
          );
        }
        return found.length;
      });
      const users = await step.run("re-send-unembedded", async () => {
        const found = await findUsersWithUnembedded(deps.db, deps.embedder.model, minAge, SWEEP_LIMIT);
        if (found.length > 0) await inngest.send(found.map((user) => embeddingsRequested.create(user)));
        return found.length;
      });
      return { unreplayed, unreflected, users };
    },
  );
}
