/** The pipeline stages that can fail for a session and be retried or dead-lettered. */
export const PIPELINE_STAGES = ["replay", "reflection", "embedding"] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];
