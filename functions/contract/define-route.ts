import { createRoute, type Hook, OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, Env, MiddlewareHandler } from "hono";
import { ZodType, z } from "zod";
import { DomainError } from "../../src/errors.js";
import type { AppDeps, DepsEnv } from "../deps.js";
import { ERROR_RESPONSES, errorResponses } from "./errors.js";
import { appFieldsOf, invalidInput, invalidRequest, scopeToCaller, storableIssues } from "./input.js";

/** Which of a route's inputs name an app (set per request by the route, read by the validation hook). */
export type InputScopeVariables = { appFields: Partial<Record<"json" | "query", string[]>> };

declare module "hono" {
  interface ContextVariableMap extends InputScopeVariables {}
}

/** A JSON request body, always required (a missing or non-JSON body is a 415, an unparsable one a 400). */
export function jsonBody<Schema extends z.ZodType>(schema: Schema) {
  return { required: true, content: { "application/json": { schema } } } as const;
}

/**
 * A JSON body its handler reads itself, after checking what no schema can (the signed webhook
 * verifies its signature over the raw bytes first): documented from the schema, not validated
 * before the handler.
 */
export function handlerReadJsonBody<Schema extends z.ZodType>(schema: Schema) {
  return { required: true, content: { "application/json": { schema: documentedSchema(schema, "input") } } } as const;
}

/**
 * A schema for the document only: its JSON Schema (draft 2020-12, which OpenAPI 3.1 takes), so
 * nothing validates or types the part it describes (a body a handler reads itself, a stream).
 */
export function documentedSchema(schema: z.ZodType, io: "input" | "output"): MediaSchema {
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, { io, target: "draft-2020-12" });
  return jsonSchema as MediaSchema;
}

/** A JSON success answer. */
export function jsonAnswer<Schema extends z.ZodType>(description: string, schema: Schema) {
  return { description, content: { "application/json": { schema } } } as const;
}

type MediaSchema = Extract<NonNullable<NonNullable<RouteConfig["request"]>["body"]>["content"][string], { schema: unknown }>["schema"];

type Definition = RouteConfig & {
  /** No API key: health, the signed webhook. */
  public?: boolean;
};

/**
 * One route of the API: its path, inputs and answers as zod schemas, from which the OpenAPI
 * document, the validation of each request and the types of the handler and of the typed client
 * all come. Adds what every route shares: the error answers, and for a JSON body the checks made
 * before its schema sees it (JSON media type, parsable, storable strings, nesting).
 *
 * @example
 * const getSession = defineRoute({ method: "get", path: "/{id}", tags: ["sessions"], summary: "A session",
 *   request: { params: SessionIdSchema }, responses: { 200: jsonAnswer("The session", SessionSchema) } });
 * apiRoutes<"db">().openapi(getSession, handler);
 */
export function defineRoute<const R extends Definition>(definition: R) {
  const { public: open, responses, ...config } = definition;
  const json = config.request?.body?.content?.["application/json"];
  // A body described by a plain JSON Schema (the signed webhook's) is read by its handler, not here.
  const body = json && "schema" in json && json.schema instanceof ZodType ? json.schema : undefined;
  const query = config.request?.query as z.ZodType | undefined;
  const appFields = { json: appFieldsOf(body), query: appFieldsOf(query) };
  const middleware: MiddlewareHandler[] = [config.middleware ?? []].flat();
  if (body) middleware.push(acceptJsonBody);
  if (appFields.json.length + appFields.query.length > 0) {
    middleware.push(async (c, next) => {
      c.set("appFields", appFields);
      await next();
    });
  }
  const route = createRoute({
    ...config,
    // Typed with every error, so a client may test any status; documented below with those that apply.
    responses: { ...ERROR_RESPONSES, ...responses } as unknown as Omit<typeof ERROR_RESPONSES, keyof R["responses"]> & R["responses"],
    ...(open ? { security: [] } : {}),
    ...(middleware.length > 0 ? { middleware } : {}),
  });
  (route as RouteConfig).responses = { ...errorResponses({ keyed: !open, body: body !== undefined }), ...responses };
  return route;
}

/**
 * Routes of the API, validated by `validationHook`, that use the dependencies `Needs` and no
 * others (`c.var.deps` holds only those in their types).
 *
 * @example
 * export const instructionRoutes = apiRoutes<"db">().openapi(get, async (c) => c.json(await read(c.var.deps.db), 200));
 */
export function apiRoutes<Needs extends keyof AppDeps = never>() {
  return new OpenAPIHono<DepsEnv<Needs>>({ defaultHook: validationHook });
}

const WHERE: Record<string, string> = { json: "body", query: "query", param: "path", header: "header", cookie: "cookie", form: "body" };

/**
 * What follows each validator: a failure is the API's 400 naming every field; a success is scoped
 * to the caller's app (see `scopeToCaller`) where the route's input names one.
 */
export async function validationHook<E extends Env>(result: HookResult, c: Context<E, string>): Promise<void> {
  const where = WHERE[result.target] ?? result.target;
  if (!result.success) throw invalidRequest(result.error, where);
  const target = result.target === "json" || result.target === "query" ? result.target : undefined;
  const fields = target ? (c.get("appFields")?.[target] ?? []) : [];
  if (fields.length === 0 || c.get("principal")?.kind !== "app") return;
  const given: Record<string, unknown> = target === "json" ? await c.req.json() : c.req.query();
  scopeToCaller(c.get("principal"), result.data, fields, (field) => given[field] !== undefined);
}

/** What a validator hands its hook: the target validated, and the data or the error. */
type HookResult = Parameters<Hook<unknown, Env, string, Promise<void>>>[0];

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** A body must be sent as JSON (415 otherwise), parse (400 naming `body`) and hold only storable strings. */
const acceptJsonBody: MiddlewareHandler = async (c, next) => {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new DomainError(
      "unsupported_media_type",
      `the body must be JSON (content-type: application/json), not ${mediaType || "unspecified"}`,
      { issues: [{ field: "header.content-type", message: `expected application/json, received ${mediaType || "nothing"}` }] },
    );
  }
  // A client gone mid-body fails here, outside the parse: the error handler logs it as a client abort.
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "not JSON";
    throw invalidInput([{ field: "body", message: `malformed JSON: ${reason}` }]);
  }
  const issues = storableIssues(value, "body");
  if (issues.length > 0) throw invalidInput(issues);
  await next();
};
