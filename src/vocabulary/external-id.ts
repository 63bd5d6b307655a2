import { z } from "zod";

/** The longest id a caller may name (a user, an app, an agent). */
export const EXTERNAL_ID_MAX_LENGTH = 200;

/**
 * An id the caller names (`user_id`, `app_id`, `agent_id`), read the same way wherever it comes
 * from — body, query, path, MCP arguments: trimmed, in Unicode NFC (so "José" typed as é or as
 * e + ◌́ is one user), 1 to 200 characters, no control characters, not "." or ".." (a URL path
 * cannot carry those: they are read as its own segments). One schema, so
 * `DELETE /v1/users/ana%20` erases the "ana" that `{"user_id": "ana "}` created.
 *
 * @example
 * const Query = z.object({ user_id: ExternalIdSchema, app_id: ExternalIdSchema.default("default") });
 */
export const ExternalIdSchema = z
  .string()
  .trim()
  .normalize("NFC")
  .min(1)
  .max(EXTERNAL_ID_MAX_LENGTH)
  .regex(/^\P{Cc}*$/u, "control characters are not allowed")
  .refine((id) => id !== "." && id !== "..", "'.' and '..' are path segments, not ids");
