type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; oneOf?: Schema[] };
type Operation = {
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
};
export type Document = { paths: Record<string, Record<string, Operation>> };

const TAGS = ["sessions", "retrieval", "memories", "entities", "operations"];

/** `name`, with `*` when required: the fields of an object schema (each branch of a union). */
function fields(schema: Schema | undefined, marked = true): string {
  if (!schema) return "";
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return [...new Set(branches.flatMap((branch) => fields(branch, marked).split(", ")))].filter(Boolean).join(", ");
  return Object.keys(schema.properties ?? {})
    .map((name) => `\`${name}\`${marked && schema.required?.includes(name) ? "*" : ""}`)
    .join(", ");
}

function input(operation: Operation): string {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === "query");
  const query = parameters.map((parameter) => `\`${parameter.name}\`${parameter.required ? "*" : ""}`).join(", ");
  const body = fields(operation.requestBody?.content["application/json"]?.schema);
  return [query && `query ${query}`, body && `body ${body}`].filter(Boolean).join("; ") || "—";
}

function answers(operation: Operation): string {
  return Object.entries(operation.responses)
    .filter(([status]) => status.startsWith("2"))
    .map(([status, response]) => {
      const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
      if (!media) return `${status}`;
      return mediaType === "application/json" ? `${status} ${fields(media.schema, false) || "JSON"}` : `${status} \`${mediaType}\``;
    })
    .join("; ");
}

/**
 * The routes reference (docs/api.md) from the OpenAPI document: one table per tag, a line per
 * route with its inputs (`*` required) and its answers' top-level fields.
 *
 * @example
 * await writeFile("docs/api.md", renderApiReference(await (await app.request("/openapi.json")).json()));
 */
export function renderApiReference(document: Document): string {
  const rows = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  const sections = TAGS.map((tag) => {
    const lines = rows
      .filter((row) => row.operation.tags?.includes(tag))
      .map(
        ({ method, path, operation }) =>
          `| \`${method}\` | \`${path}\` | ${operation.summary ?? ""}${operation.security?.length === 0 ? " (no API key)" : ""} | ${input(operation)} | ${answers(operation)} |`,
      );
    return [`## ${tag}`, "", "| method | path | what | input | answer |", "| --- | --- | --- | --- | --- |", ...lines].join("\n");
  });
  return `${[
    "# HTTP API reference",
    "",
    "Generated from `/openapi.json` by `npm run docs:api` (a test fails when this file is stale). The",
    "document is generated from the zod schemas each route validates its input with and types its",
    "answer with (`functions/routes/*`, `functions/json/*`); `/docs` renders it as a page.",
    "",
    "| rule | what it means |",
    "| --- | --- |",
    "| keys | `Authorization: Bearer <key>` or `x-api-key: <key>`; an app key sees only its app (`app_id` filled in, another app is 404) |",
    '| errors | `{ "error": { "code", "message", "details" } }`; a 400 lists `details.issues[]` as `{ field, message }` (`body.events.0.role`, `query.limit`, `path.seq`) |',
    "| methods | a path asked with a method it does not serve is 405 `method_not_allowed` with `Allow` naming those it serves; a path nothing serves is 404 |",
    "| bodies | JSON only (415 otherwise); NUL and lone surrogates refused (400 naming the field); nesting deeper than 32 refused |",
    "| times | every timestamp in an answer is RFC 3339 UTC ending in `Z` |",
    "| typed client | `client/` (`createMemoryClient`) carries these types; narrow an answer with `if (response.ok)` |",
    "",
    ...sections.flatMap((section) => [section, ""]),
  ].join("\n")}`;
}
