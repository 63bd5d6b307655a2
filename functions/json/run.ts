import { z } from "zod";
import type { RunSummary } from "../../src/executor/run-store.js";
import { Timestamp, timestamp } from "./timestamp.js";

/** A pipeline run of the embedded executor, with its memoized steps and errors. */
export const RunSchema = z.object({
  id: z.string(),
  app_id: z.string().nullable(),
  user_id: z.string().nullable(),
  session_id: z.string().nullable(),
  function_id: z.string(),
  status: z.string(),
  attempt: z.number().int(),
  error: z.unknown(),
  created_at: Timestamp,
  finished_at: Timestamp.nullable(),
  steps: z.array(z.object({ name: z.string().nullable(), error: z.unknown(), created_at: Timestamp })),
});

export function runJson(run: RunSummary): z.infer<typeof RunSchema> {
  return {
    ...run,
    created_at: timestamp(run.created_at),
    finished_at: run.finished_at === null ? null : timestamp(run.finished_at),
    steps: run.steps.map((step) => ({ ...step, created_at: timestamp(step.created_at) })),
  };
}
