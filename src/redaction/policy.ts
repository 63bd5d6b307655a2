import { z } from "zod";
import { REDACTION_KINDS } from "./detectors.js";
import type { RedactionPolicy } from "./redact.js";

/** `REDACT`: a comma-separated list of kinds (`email,phone,card,secret`), or `all`; unset redacts nothing. */
export const RedactSettingSchema = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((kind) => kind.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum([...REDACTION_KINDS, "all"])))
  .transform((kinds): RedactionPolicy => new Set(kinds.includes("all") ? REDACTION_KINDS : kinds.filter((kind) => kind !== "all")));

export const NO_REDACTION: RedactionPolicy = new Set();
