import { consolidateChunk, countOperations, extractChunk } from "../../src/pipeline/derive/reflection-chunk.js";
import { embeddingsRequested, reflectionRequested, sessionEnded } from "../../src/pipeline/events.js";
import { finishJob, startChunkJob } from "../../src/pipeline/jobs.js";
import { loadReflectionChunk } from "../../src/pipeline/reflection-backlog.js";
import { withUsageScope } from "../../src/providers/usage-scope.js";
import { tokensSpent, usageDay } from "../../src/usage/usage-store.js";
import { derivationTime, type PipelineClient } from "../client.js";
import { embedInline } from "./embed-inline.js";
import { USER_KEY } from "./keys.js";
import { toStepError } from "./provider-errors.js";
import { countingFailures } from "./stage-failures.js";

const MAX_CHUNKS_PER_RUN = 20;

/**
 * One reflection of a user at a time, whichever of the two functions runs it (Inngest's env scope):
 * consolidation applies a user's sessions in the order they were reflected.
 */
const USER_REFLECTION = { limit: 1, key: `"reflection:" + ${USER_KEY}`, scope: "env" as const };

/**
 * Deep reflection: when a session ends or its unreflected importance crosses the
 * threshold, extract facts, insights and trait evidence from the events past the reflection
 * watermark and consolidate them into the user's memory. Requests wait for the debounce period
 * (`deep-reflection`); a session's end is reflected at once (`deep-reflection-ended`) and cancels
 * the request still waiting. Extraction output is validated before anything is written;
 * consolidation and the watermark move in one transaction, so each event is reflected exactly once;
 * one run per user at a time. A run that fails for good counts against the session (dead letters).
 */
export function createDeepReflection(inngest: PipelineClient, settings: { reflectionDebounce: string }) {
  // One trigger each, typed as either so that one handler serves both (both name the session and its user).
  const triggers = (trigger: typeof reflectionRequested | typeof sessionEnded): [typeof reflectionRequested | typeof sessionEnded] => [
    trigger,
  ];
  const configs = [
    {
      id: "deep-reflection",
      name: "Deep reflection: facts, insights, traits",
      triggers: triggers(reflectionRequested),
      debounce: { key: "event.data.session_id", period: settings.reflectionDebounce as `${number}s`, timeout: "5m" as const },
      // The end reflects the whole session at once: a request still waiting is not needed.
      cancelOn: [{ event: sessionEnded, match: "data.session_id" }],
    },
    { id: "deep-reflection-ended", name: "Deep reflection of an ended session", triggers: triggers(sessionEnded) },
  ];
  return configs.map((config) =>
    inngest.createFunction({ ...config, concurrency: USER_REFLECTION, retries: 4 }, async ({ event, step, runId, deps }) => {
      // A session's end and a reflection request both name the session and its user.
      const { session_id: sessionId, app_id, user_id } = event.data;
      const payload = { session_id: sessionId, app_id, user_id };
      const target = { stage: "reflection" as const, appId: app_id, userId: user_id, sessionId };
      const totals = { chunks: 0, operations: {} as Record<string, number> };
      const usage = { appId: app_id, userId: user_id, stage: "reflection" as const };

      // Over the app's daily token budget, reflection parks: nothing is extracted or marked, so the
      // sweep sends the session again and it resumes once the day (UTC) has turned.
      if (deps.settings.dailyTokenBudget > 0) {
        const spent = await step.run("check-token-budget", () => tokensSpent(deps.db, app_id, usageDay(deps.clock.now())));
        if (spent >= deps.settings.dailyTokenBudget) return { session_id: sessionId, parked: "daily token budget", spent };
      }
      return countingFailures(step, deps, target, async () => {
        for (let chunk = 0; chunk < MAX_CHUNKS_PER_RUN; chunk++) {
          const backlog = await step.run(`load-unreflected-${chunk}`, async () => {
            const loaded = await loadReflectionChunk(deps.db, sessionId, deps.settings.reflectionMaxEvents);
            if (!loaded) return null;
            return { ...loaded, jobId: await startChunkJob(deps.db, runId, "deep_reflection", loaded, { stage: "extracting" }) };
          });
          if (!backlog) break;

          try {
            const extraction = await step.run(`extract-${backlog.toSeq}`, () =>
              withUsageScope(usage, () =>
                extractChunk({ db: deps.db, extractor: deps.llm }, backlog, derivationTime(deps, backlog.session)).catch(toStepError),
              ),
            );
            const result = await step.run(`consolidate-${backlog.toSeq}`, async () => {
              const outcome = await withUsageScope(usage, () =>
                consolidateChunk(deps, backlog, extraction, { now: derivationTime(deps, backlog.session) }),
              );
              if (!outcome.applied) {
                // Another run reflected this range first; its result stands.
                await finishJob(deps.db, backlog.jobId, { status: "skipped", result: { reason: outcome.reason } });
                return { applied: false, counts: {} };
              }
              return { applied: true, counts: countOperations(outcome.written) };
            });
            if (!result.applied) break;
            totals.chunks++;
            for (const [op, count] of Object.entries(result.counts)) totals.operations[op] = (totals.operations[op] ?? 0) + count;
          } catch (error) {
            await step.run(`record-failure-${backlog.toSeq}`, () =>
              finishJob(deps.db, backlog.jobId, { status: "failed", error: error instanceof Error ? error.message : String(error) }),
            );
            throw error;
          }
          // The log ended at this chunk when it was loaded; later events come with a request of their
          // own (importance, the session's end) or the sweep.
          if (!backlog.more) break;
          if (chunk === MAX_CHUNKS_PER_RUN - 1)
            await step.sendEvent("continue-reflection", reflectionRequested.create({ ...payload, reason: "manual" }));
        }
        // Insights and facts carry their embeddings; traits and historical versions get theirs here,
        // and the backfill is asked only for what is left.
        if (totals.chunks > 0) {
          const inline = await embedInline(step, deps, { appId: app_id, userId: user_id, reflected: true }, "embed-reflected");
          if (inline.askBackfill) await step.sendEvent("request-embeddings", embeddingsRequested.create({ app_id, user_id }));
        }
        return { session_id: sessionId, ...totals };
      });
    }),
  );
}
