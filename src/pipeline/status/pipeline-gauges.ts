import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { registerGauge } from "../../telemetry/metrics.js";
import { pipelineLag } from "./pipeline-lag.js";

/**
 * The pipeline's state as gauges, read from the database at each scrape (so every replica reports
 * the same, and a restart loses nothing): events appended and digested per stage (their rates are
 * the ingest and digest rates), the backlog per stage, the age of the oldest event or memory still
 * waiting (lag in seconds), the embedded executor's queue, and dead letters (parked stages).
 * Returns what stops them.
 *
 * @example
 * const stop = registerPipelineGauges(db, { executor: true });
 */
export function registerPipelineGauges(db: Pick<Database, "execute">, options: { executor: boolean }): () => void {
  const stops = [
    registerGauge(
      { name: "mnemo.pipeline.events", description: "Events appended, and digested by each stage (sum of the sessions' watermarks)" },
      async () => {
        const [row] = await queryRows<Record<"appended" | "replayed" | "reflected", string | number>>(
          db,
          sql`SELECT coalesce(sum(last_seq), 0) AS appended, coalesce(sum(replayed_seq), 0) AS replayed, coalesce(sum(reflected_seq), 0) AS reflected FROM sessions`,
        );
        return [
          { value: Number(row?.appended ?? 0), attributes: { stage: "appended" } },
          { value: Number(row?.replayed ?? 0), attributes: { stage: "replay" } },
          { value: Number(row?.reflected ?? 0), attributes: { stage: "reflection" } },
        ];
      },
    ),
    registerGauge(
      { name: "mnemo.pipeline.backlog", description: "Events (replay, reflection) and memories (embedding) still owed a stage" },
      async () => {
        const [sessions] = await queryRows<Record<"replay" | "reflection", string | number>>(
          db,
          sql`SELECT coalesce(sum(last_seq - replayed_seq), 0) AS replay,
                   coalesce(sum(greatest(CASE WHEN ended_at IS NOT NULL THEN last_seq ELSE reflection_requested_seq END - reflected_seq, 0)), 0) AS reflection
              FROM sessions`,
        );
        const [memories] = await queryRows<{ waiting: string | number }>(
          db,
          sql`SELECT count(*) AS waiting FROM memories WHERE embedding IS NULL AND expired_at IS NULL`,
        );
        return [
          { value: Number(sessions?.replay ?? 0), attributes: { stage: "replay" } },
          { value: Number(sessions?.reflection ?? 0), attributes: { stage: "reflection" } },
          { value: Number(memories?.waiting ?? 0), attributes: { stage: "embedding" } },
        ];
      },
    ),
    registerGauge(
      {
        name: "mnemo.pipeline.lag",
        unit: "s",
        description: "Age of the oldest event not yet summarised, and of the oldest memory without a vector",
      },
      async () => {
        const lag = await pipelineLag(db);
        return [
          { value: lag.replaySeconds, attributes: { stage: "replay" } },
          { value: lag.embeddingSeconds, attributes: { stage: "embedding" } },
        ];
      },
    ),
    registerGauge(
      { name: "mnemo.pipeline.dead_letters", description: "Stages of a session or user parked after repeated failures, until retried" },
      async () => {
        const rows = await queryRows<{ stage: string; parked: string | number }>(
          db,
          sql`SELECT stage, count(*) AS parked FROM pipeline_failures WHERE parked_at IS NOT NULL GROUP BY stage`,
        );
        return ["replay", "reflection", "embedding"].map((stage) => ({
          value: Number(rows.find((row) => row.stage === stage)?.parked ?? 0),
          attributes: { stage },
        }));
      },
    ),
  ];
  if (options.executor) {
    stops.push(
      registerGauge(
        { name: "mnemo.executor.queue", description: "Runs of the embedded executor waiting (due now or later) and running" },
        async () => {
          const rows = await queryRows<{ state: string; runs: string | number }>(
            db,
            sql`SELECT CASE WHEN status = 'running' THEN 'running' WHEN run_at <= now() THEN 'due' ELSE 'scheduled' END AS state, count(*) AS runs
                FROM executor_runs WHERE status IN ('queued', 'running') GROUP BY 1`,
          );
          return ["due", "scheduled", "running"].map((state) => ({
            value: Number(rows.find((row) => row.state === state)?.runs ?? 0),
            attributes: { state },
          }));
        },
      ),
    );
  }
  return () => {
    for (const stop of stops) stop();
  };
}
