import type { RedactionPolicy } from "./redact.js";

/** Redacts nothing: the policy when `REDACT` is unset. */
export const NO_REDACTION: RedactionPolicy = new Set();
