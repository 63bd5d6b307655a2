import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { z } from "zod";
import { errorResponse } from "./error-handler.js";

/**
 * zod validation for one request part. A failure answers 400 in the app's error shape, with
 * one `{ field, message }` per problem; the raw zod result never leaves the server.
 *
 * @example
 * app.post("/v1/sessions", validate("json", CreateSessionSchema), (c) => c.json(c.req.valid("json")));
 */
export function validate<Target extends keyof ValidationTargets, Schema extends z.ZodType>(target: Target, schema: Schema) {
  return zValidator(target, schema, (result, c) => {
    if (result.success) return;
    const issues = result.error.issues.map((issue) => ({
      field: [target === "json" ? "body" : target, ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
    const first = issues[0];
    return errorResponse(c, "invalid_request", first ? `${first.field}: ${first.message}` : "invalid request", { issues });
  });
}
