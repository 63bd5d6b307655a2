/** The instrumentation scope of every span and instrument the service makes. */
export const TELEMETRY_SCOPE = "mnemo-pipeline";
