import type { PipelineClient, PipelineSettings } from "./client.js";
import { createDecay } from "./functions/decay.js";
import { createDeepReflection } from "./functions/deep-reflection.js";
import { createEmbedBackfill } from "./functions/embed-backfill.js";
import { createFastReplay } from "./functions/fast-replay.js";
import { createPipelineSweep } from "./functions/pipeline-sweep.js";

/** Every pipeline function, bound to one client; served at `/api/inngest`. */
export function createPipelineFunctions(inngest: PipelineClient, settings: PipelineSettings) {
  return [
    ...createFastReplay(inngest, settings),
    ...createDeepReflection(inngest, settings),
    createEmbedBackfill(inngest),
    createPipelineSweep(inngest, settings),
    createDecay(inngest, settings),
  ];
}

export type PipelineFunction = ReturnType<typeof createPipelineFunctions>[number];
