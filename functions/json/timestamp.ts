import { z } from "zod";

/** Every time the API answers with: RFC 3339 in UTC, ending in `Z` (`2026-11-25T09:22:58.664Z`). */
export const Timestamp = z.iso
  .datetime()
  .describe("RFC 3339, UTC")
  // zod's own check refuses an offset; the document says so to other validators too.
  .meta({ pattern: "Z$", examples: ["2026-11-25T09:22:58.664Z"] });

/** A time as the API writes it; the database's own text (`2026-11-25 09:22:58.664+00`) parses too. */
export function timestamp(value: Date | string): string {
  return (typeof value === "string" ? new Date(value.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")) : value).toISOString();
}
