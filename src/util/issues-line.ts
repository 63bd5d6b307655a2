import type { z } from "zod";

/**
 * A failed parse's issues on one line, each as `field.path: message`, `;`-separated: what a
 * start-up failure, an import error or an evaluation file's error names. An issue about the value
 * as a whole (no path) is named `whole`.
 *
 * @example
 * issuesLine(EventLineSchema.safeParse({}).error, "(the line)"); // "session: Invalid input: …; user_id: …"
 */
export function issuesLine(error: z.ZodError, whole = "(the value)"): string {
  return error.issues.map((issue) => `${issue.path.join(".") || whole}: ${issue.message}`).join("; ");
}
