import { ZodObject, ZodUnion, type z } from "zod";
import type { Principal } from "../../src/auth/api-keys.js";
import { DomainError, notFound } from "../../src/errors.js";

/** One problem with a request, named by its full path (`body.events.0.content`, `query.limit`, `path.seq`). */
export interface InputIssue {
  field: string;
  message: string;
}

/** Deeper than any request of this API needs; a deeper body is refused before anything walks it. */
export const MAX_NESTING = 32;

/** Why a string cannot be stored, or undefined when it can. */
export function unstorable(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL (U+0000) characters";
  if (!text.isWellFormed()) return "must be well-formed Unicode (a lone UTF-16 surrogate has no UTF-8 form)";
  return undefined;
}

/**
 * Postgres text and jsonb cannot store U+0000, and a lone UTF-16 surrogate has no UTF-8 form
 * (jsonb refuses its escape): such strings are refused up front, named where they are, before a
 * schema sees them. A value nested deeper than MAX_NESTING is refused too (walking it could exhaust
 * the stack).
 *
 * @example
 * storableIssues({ content: "a\u0000b" }, "body"); // [{ field: "body.content", message: "must not contain NUL …" }]
 */
export function storableIssues(value: unknown, where: string): InputIssue[] {
  const issues: InputIssue[] = [];
  const walk = (item: unknown, path: (string | number)[]): void => {
    const field = [where, ...path].join(".");
    if (path.length > MAX_NESTING) {
      issues.push({ field, message: `nested more than ${MAX_NESTING} levels deep` });
      return;
    }
    if (typeof item === "string") {
      const problem = unstorable(item);
      if (problem) issues.push({ field, message: problem });
    } else if (Array.isArray(item)) {
      for (const [index, entry] of item.entries()) walk(entry, [...path, index]);
    } else if (item && typeof item === "object") {
      for (const [key, entry] of Object.entries(item)) {
        const keyProblem = unstorable(key);
        if (keyProblem) issues.push({ field: [where, ...path, key].join("."), message: `field name: ${keyProblem}` });
        walk(entry, [...path, key]);
      }
    }
  };
  walk(value, []);
  return issues;
}

/** The 400 for a list of issues: every one in `details.issues`, the first in the message. */
export function invalidInput(issues: InputIssue[]): DomainError {
  const first = issues[0];
  return new DomainError("invalid_request", first ? `${first.field}: ${first.message}` : "invalid request", { issues });
}

/**
 * The 400 for a failed parse: one `{ field, message }` per issue, fields prefixed with where they
 * came from (`body`, `query`, `path`, `arguments`), an unknown field named by its own path.
 */
export function invalidRequest(error: z.ZodError, where: string): DomainError {
  return invalidInput(
    error.issues.flatMap((issue) => {
      const at = [where, ...issue.path.map(String)];
      if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ field: [...at, key].join("."), message: "unknown field" }));
      return [{ field: at.join("."), message: issue.message }];
    }),
  );
}

/** The fields by which a request names its app: `app_id`, and ADK's `app_name`. */
export const APP_FIELDS = ["app_id", "app_name"] as const;

/** The app fields an input schema has (each branch of a union must have it). */
export function appFieldsOf(schema: z.ZodType | undefined): string[] {
  return schema ? APP_FIELDS.filter((field) => hasField(schema, field)) : [];
}

function hasField(schema: z.ZodType, field: string): boolean {
  if (schema instanceof ZodObject) return field in schema.shape;
  if (schema instanceof ZodUnion) return (schema.options as z.ZodType[]).every((option) => hasField(option, field));
  return false;
}

/**
 * Scopes parsed input to the caller's app: for an app key, each of the input's app `fields` is set
 * to the key's app; one the caller named (`named`) with another app is answered 404, exactly as if
 * the resource did not exist, so a key never learns what another app holds. Other callers' input
 * is unchanged. The value is changed in place (it is the parser's own fresh copy).
 *
 * @example
 * scopeToCaller({ kind: "app", appId: "acme", keyId }, parsed, ["app_id"], (field) => field in rawBody);
 */
export function scopeToCaller(
  principal: Principal | undefined,
  parsed: unknown,
  fields: readonly string[],
  named: (field: string) => boolean,
): void {
  if (principal?.kind !== "app" || fields.length === 0 || !parsed || typeof parsed !== "object" || Array.isArray(parsed)) return;
  const input = parsed as Record<string, unknown>;
  for (const field of fields) {
    if (named(field) && input[field] !== principal.appId) throw notFound("app", String(input[field]));
    input[field] = principal.appId;
  }
}

/**
 * Parses a value that did not come through a route's validators (an MCP tool's arguments, a
 * signed webhook body) with the same rules and errors: storable strings, the schema, the caller's app.
 *
 * @example
 * const input = parseInput(SearchMemorySchema, args, "arguments", principal);
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: string,
  principal?: Principal,
): z.output<Schema> {
  const issues = storableIssues(value, where);
  if (issues.length > 0) throw invalidInput(issues);
  const result = schema.safeParse(value);
  if (!result.success) throw invalidRequest(result.error, where);
  const given = value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  scopeToCaller(principal, result.data, appFieldsOf(schema), (field) => given[field] !== undefined);
  return result.data;
}
