import type { Context, MiddlewareHandler, ValidationTargets } from "hono";
import { validator } from "hono/validator";
import { z } from "zod";
import type { AppEnv } from "../deps.js";
import { APP_FIELDS, scopeToApp } from "./auth.js";
import { DomainError } from "../../src/errors.js";
import { errorResponse } from "./error-handler.js";

/**
 * zod validation for one request part, scoped to the caller's app first (see `scopeToApp`). A
 * failure answers 400 in the app's error shape, with one `{ field, message }` per problem; the raw
 * zod result never leaves the server.
 *
 * @example
 * app.post("/v1/sessions", validate("json", CreateSessionSchema), (c) => c.json(c.req.valid("json")));
 */
export function validate<Target extends keyof ValidationTargets, Schema extends z.ZodType>(
  target: Target,
  schema: Schema,
): MiddlewareHandler<AppEnv, string, { in: { [K in Target]: z.input<Schema> }; out: { [K in Target]: z.output<Schema> } }> {
  const checked = z.unknown().superRefine(rejectNulCharacters).pipe(schema);
  const appFields = APP_FIELDS.filter((field) => hasField(schema, field));
  const middleware = validator(target, (value: unknown, c: Context<AppEnv>) => {
    const result = checked.safeParse(scopeToApp(c.get("principal"), value, appFields));
    if (result.success) return result.data as z.output<Schema>;
    const invalid = invalidRequest(result.error, target === "json" ? "body" : target);
    return errorResponse(c, invalid.code, invalid.message, invalid.details);
  });
  // hono's validator types its output from the callback; the parsed schema output is what it stores.
  return middleware as unknown as MiddlewareHandler<AppEnv, string, { in: { [K in Target]: z.input<Schema> }; out: { [K in Target]: z.output<Schema> } }>;
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

/**
 * The 400 for a failed parse: one `{ field, message }` per issue, fields prefixed with where they
 * came from (`body`, `query`), the first one in the message.
 */
export function invalidRequest(error: z.ZodError, where: string): DomainError {
  const issues = error.issues.map((issue) => ({ field: [where, ...issue.path.map(String)].join("."), message: issue.message }));
  const first = issues[0];
  return new DomainError("invalid_request", first ? `${first.field}: ${first.message}` : "invalid request", { issues });
}

/** Whether an object schema (or every branch of a union of them) has the field. */
function hasField(schema: z.ZodType, field: string): boolean {
  if (schema instanceof z.ZodObject) return field in schema.shape;
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).every((option) => hasField(option, field));
  return false;
}
