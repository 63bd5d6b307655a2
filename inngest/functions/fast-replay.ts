import { summarizeChunk, writeChunkEpisodes } from "../../src/pipeline/derive/replay-chunk.js";
import { embeddingsRequested, reflectionRequested, sessionEnded, sessionEventsAppended } from "../../src/pipeline/events.js";
import { finishJob, startChunkJob } from "../../src/pipeline/jobs.js";
import { requestReflection, unreflectedImportance } from "../../src/pipeline/reflection-backlog.js";
import { loadReplayChunk } from "../../src/pipeline/replay-backlog.js";
import type { Summary } from "../../src/providers/types.js";
import { withUsageScope } from "../../src/providers/usage-scope.js";
import { derivationTime, type PipelineClient } from "../client.js";
import { toStepError } from "./provider-errors.js";
import { countingFailures } from "./stage-failures.js";

/** Chunks one run summarises before handing the rest of a long backlog to a fresh run. */
const MAX_CHUNKS_PER_RUN = 20;

/**
 * One replay of a session at a time, whichever of the two functions runs it: the key is shared
 * across functions (Inngest's env scope), so an end arriving while appends' replay runs waits for it.
 */
const SESSION_REPLAY = { limit: 1, key: '"replay:" + event.data.session_id', scope: "env" as const };

/**
 * Fast replay: summarise the events past a session's watermark into episodic memories, one per
 * chunk, each with its source events, and ask for their embeddings. Appends wait until the session
 * has been quiet for the debounce period (`fast-replay`); an ended session says nothing more, so
 * its end is replayed at once (`fast-replay-ended`) and cancels the replay still waiting. Every step is idempotent through the watermark
 * and recorded as a consolidation job; a run that fails for good counts against the session (dead letters).
 */
export function createFastReplay(inngest: PipelineClient, settings: { replayDebounce: string; replayDebounceTimeout: string }) {
  // One trigger each, typed as either so that one handler serves both (their payloads are alike).
  const triggers = (trigger: typeof sessionEventsAppended | typeof sessionEnded): [typeof sessionEventsAppended | typeof sessionEnded] => [
    trigger,
  ];
  const configs = [
    {
      id: "fast-replay",
      name: "Fast replay: rolling episodic summaries",
      triggers: triggers(sessionEventsAppended),
      // A session that never goes quiet is still summarised once the timeout has passed.
      debounce: {
        key: "event.data.session_id",
        period: settings.replayDebounce as `${number}s`,
        timeout: settings.replayDebounceTimeout as `${number}s`,
      },
      // The end replays the whole session at once: a replay still waiting for quiet is not needed.
      cancelOn: [{ event: sessionEnded, match: "data.session_id" }],
    },
    { id: "fast-replay-ended", name: "Fast replay of an ended session", triggers: triggers(sessionEnded) },
  ];
  return configs.map((config) =>
    inngest.createFunction({ ...config, concurrency: SESSION_REPLAY, retries: 4 }, async ({ event, step, runId, deps }) => {
      const payload = event.data;
      const { session_id: sessionId, app_id, user_id } = payload;
      const target = { stage: "replay" as const, appId: app_id, userId: user_id, sessionId };
      const written: string[] = [];
      let turns = 0;
      let unembedded = 0;
      let skips = 0;
      // A long backlog (or a run of skips) hands what is left to a fresh run.
      let caughtUp = false;
      // An ended session's reflection comes with its end: no importance check is needed to ask for it.
      const ended = event.name === sessionEnded.name;

      return countingFailures(step, deps, target, async () => {
        for (let chunk = 0; chunk < MAX_CHUNKS_PER_RUN; chunk++) {
          const backlog = await step.run(`load-backlog-${chunk}`, async () => {
            const loaded = await loadReplayChunk(deps.db, sessionId, deps.settings.replayMaxEvents);
            if (!loaded) return null;
            // The job records the new events; the summary covers the whole chunk.
            return { ...loaded, jobId: await startChunkJob(deps.db, runId, "fast_replay", loaded) };
          });
          if (!backlog) {
            caughtUp = true;
            break;
          }
          // Step ids stay unique when a range is loaded again after a skip.
          const again = skips > 0 ? `-again-${skips}` : "";

          let summary: Summary;
          try {
            summary = await step.run(`summarize-${backlog.toSeq}${again}`, () =>
              withUsageScope({ appId: app_id, userId: user_id, stage: "replay" }, () =>
                summarizeChunk(deps.llm, backlog).catch(toStepError),
              ),
            );
          } catch (error) {
            await step.run(`record-failure-${backlog.toSeq}${again}`, () =>
              finishJob(deps.db, backlog.jobId, { status: "failed", error: error instanceof Error ? error.message : String(error) }),
            );
            throw error;
          }

          // The episodes are written with their vectors (the backfill fills whatever could not be embedded).
          const result = await step.run(`write-episode-${backlog.toSeq}${again}`, () =>
            writeChunkEpisodes(deps.db, backlog, summary, {
              model: deps.llm.id,
              now: derivationTime(deps, backlog.session),
              embedder: deps.embedder,
            }),
          );
          if (!result.applied) {
            // Another run moved the watermark first (a replay cancelled by the session's end still
            // finishes the step it was in): its episode stands, and what it did not cover is loaded again.
            await step.run(`record-skip-${backlog.toSeq}${again}`, () =>
              finishJob(deps.db, backlog.jobId, { status: "skipped", result: { reason: result.reason } }),
            );
            skips++;
            continue;
          }
          if (result.written.memoryId) written.push(result.written.memoryId);
          turns += result.written.turns;
          unembedded += result.written.unembedded;
          // The log ended at this chunk when it was loaded; later appends announce themselves.
          if (!backlog.more) {
            caughtUp = true;
            break;
          }
        }
        if (!caughtUp) await step.sendEvent("continue-backlog", sessionEventsAppended.create(payload));

        if (unembedded > 0) await step.sendEvent("request-embeddings", embeddingsRequested.create({ app_id, user_id }));
        // Deep reflection costs an LLM call: start it before the session ends only when enough
        // important things were said (the importance accumulated since the last reflection). The request is
        // recorded on the session first, so the sweep finds it if the event is ever lost.
        if (ended) return { session_id: sessionId, episodes: written, turns };
        const requested = await step.run("request-reflection-if-important", async () => {
          if ((await unreflectedImportance(deps.db, sessionId)) < deps.settings.reflectionImportanceThreshold) return false;
          return (await requestReflection(deps.db, { sessionId })).length > 0;
        });
        if (requested) {
          await step.sendEvent(
            "request-reflection",
            reflectionRequested.create({ session_id: sessionId, app_id, user_id, reason: "importance" }),
          );
        }
        return { session_id: sessionId, episodes: written, turns };
      });
    }),
  );
}
