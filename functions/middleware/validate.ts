import type { Context, Env, MiddlewareHandler, ValidationTargets } from "hono";
import { z } from "zod";
import { DomainError } from "../../src/errors.js";
import { APP_FIELDS, scopeToApp } from "./auth.js";

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * zod validation for one request part (`json` body or `query`), scoped to the caller's app first
 * (see `scopeToApp`). A body must be sent as JSON (415 otherwise) and parse (400 naming `body`);
 * every failure answers in the app's error shape with one `{ field, message }` per problem, the
 * field being its full path (`body.events.0.content`, `body.colour` for an unknown field). Strings
 * that Postgres cannot store (NUL, lone UTF-16 surrogates) are refused where they are.
 *
 * @example
 * app.post("/v1/sessions", validate("json", CreateSessionSchema), (c) => c.json(c.req.valid("json")));
 */
export function validate<Target extends "json" | "query", Schema extends z.ZodType, E extends Env = Env>(
  target: Target,
  schema: Schema,
): MiddlewareHandler<E, string, { in: { [K in Target]: z.input<Schema> }; out: { [K in Target]: z.output<Schema> } }> {
  const checked = z.unknown().superRefine(rejectUnstorableStrings).pipe(schema);
  const appFields = APP_FIELDS.filter((field) => hasField(schema, field));
  const where = target === "json" ? "body" : "query";
  return async (c, next) => {
    const value = target === "json" ? await readJsonBody(c) : queryValues(c);
    const result = checked.safeParse(scopeToApp(c.get("principal"), value, appFields));
    if (!result.success) throw invalidRequest(result.error, where);
    c.req.addValidatedData(target as keyof ValidationTargets, result.data as object);
    await next();
  };
}

async function readJsonBody(c: Context): Promise<unknown> {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new DomainError(
      "unsupported_media_type",
      `the body must be JSON (content-type: application/json), not ${mediaType || "unspecified"}`,
      {
        issues: [{ field: "header.content-type", message: `expected application/json, received ${mediaType || "nothing"}` }],
      },
    );
  }
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : "not JSON";
    throw new DomainError("invalid_request", `body: malformed JSON (${reason})`, {
      issues: [{ field: "body", message: `malformed JSON: ${reason}` }],
    });
  }
}

function queryValues(c: Context): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? (values[0] as string) : values]),
  );
}

/** Deeper than any request of this API needs; a deeper body is refused before anything walks it. */
export const MAX_NESTING = 32;

/**
 * Postgres text and jsonb cannot store U+0000, and a lone UTF-16 surrogate has no UTF-8 form
 * (jsonb refuses its escape): refuse both up front, naming where they are. A body nested deeper
 * than MAX_NESTING is refused too (walking it could exhaust the stack).
 */
function rejectUnstorableStrings(value: unknown, ctx: z.RefinementCtx, path: (string | number)[] = []): void {
  if (path.length > MAX_NESTING) {
    ctx.addIssue({ code: "custom", path, message: `nested more than ${MAX_NESTING} levels deep` });
    return;
  }
  if (typeof value === "string") {
    const problem = unstorable(value);
    if (problem) ctx.addIssue({ code: "custom", path, message: problem });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) rejectUnstorableStrings(item, ctx, [...path, index]);
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = unstorable(key);
      if (keyProblem) ctx.addIssue({ code: "custom", path: [...path, key], message: `field name: ${keyProblem}` });
      rejectUnstorableStrings(item, ctx, [...path, key]);
    }
  }
}

/** Why a string cannot be stored, or undefined when it can. */
export function unstorable(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL (U+0000) characters";
  if (!text.isWellFormed()) return "must be well-formed Unicode (a lone UTF-16 surrogate has no UTF-8 form)";
  return undefined;
}

/** Parses a value that did not come through `validate` (e.g. a signed webhook body) with the same rules and errors. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, where: string): z.output<Schema> {
  const result = z.unknown().superRefine(rejectUnstorableStrings).pipe(schema).safeParse(value);
  if (!result.success) throw invalidRequest(result.error, where);
  return result.data;
}

/**
 * The 400 for a failed parse: one `{ field, message }` per issue, fields prefixed with where they
 * came from (`body`, `query`), an unknown field named by its own path, the first one in the message.
 */
export function invalidRequest(error: z.ZodError, where: string): DomainError {
  const issues = error.issues.flatMap((issue) => {
    const at = [where, ...issue.path.map(String)];
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ field: [...at, key].join("."), message: "unknown field" }));
    return [{ field: at.join("."), message: issue.message }];
  });
  const first = issues[0];
  return new DomainError("invalid_request", first ? `${first.field}: ${first.message}` : "invalid request", { issues });
}

/** Whether an object schema (or every branch of a union of them) has the field. */
function hasField(schema: z.ZodType, field: string): boolean {
  if (schema instanceof z.ZodObject) return field in schema.shape;
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).every((option) => hasField(option, field));
  return false;
}
