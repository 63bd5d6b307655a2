import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import { z } from "zod";
import { errorResponse } from "./error-handler.js";

/**
 * zod validation for one request part. A failure answers 400 in the app's error shape, with
 * one `{ field, message }` per problem; the raw zod result never leaves the server.
 *
 * @example
 * app.post("/v1/sessions", validate("json", CreateSessionSchema), (c) => c.json(c.req.valid("json")));
 */
export function validate<Target extends keyof ValidationTargets, Schema extends z.ZodType>(target: Target, schema: Schema) {
  return zValidator(target, z.unknown().superRefine(rejectNulCharacters).pipe(schema), (result, c) => {
    if (result.success) return;
    const issues = result.error.issues.map((issue) => ({
      field: [target === "json" ? "body" : target, ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
    const first = issues[0];
    return errorResponse(c, "invalid_request", first ? `${first.field}: ${first.message}` : "invalid request", { issues });
  });
}

/** Postgres text and jsonb cannot store U+0000: refuse it up front, naming where it is. */
function rejectNulCharacters(value: unknown, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) ctx.addIssue({ code: "custom", path, message: "must not contain NUL (U+0000) characters" });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => rejectNulCharacters(item, ctx, [...path, index]));
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      rejectNulCharacters(key, ctx, [...path, key]);
      rejectNulCharacters(item, ctx, [...path, key]);
    }
  }
}
