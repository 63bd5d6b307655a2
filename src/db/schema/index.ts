export * from "./consolidation-jobs.js";
export * from "./executor.js";
export * from "./memories.js";
export * from "./memory-history.js";
export * from "./memory-sources.js";
export * from "./scoped-state.js";
export * from "./session-events.js";
export * from "./sessions.js";
