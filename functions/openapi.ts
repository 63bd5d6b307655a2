import { z } from "zod";
import { ContextRequestSchema, ContextWindowSchema } from "../src/context/schemas.js";
import { InstructionQuerySchema, PutInstructionSchema } from "../src/memory/procedural/instructions.js";
import { ListMemoriesQuerySchema } from "../src/memory/read/memory-read.js";
import { ExpandMemoriesSchema, MemoryIndexQuerySchema } from "../src/memory/recall/memory-index.js";
import { SearchMemorySchema } from "../src/memory/recall/search.js";
import { CreateMemorySchema, PatchMemorySchema } from "../src/memory/write/memory-commands.js";
import {
  AppendEventsSchema,
  CreateSessionSchema,
  ListSessionsQuerySchema,
  PatchStateSchema,
  ReadEventsQuerySchema,
} from "../src/sessions/schemas.js";
import { RedactEventSchema } from "../src/users/redact-event.js";
import { AdkSearchSchema } from "./routes/adk.js";
import { DecayRunSchema } from "./routes/decay.js";
import { LiveQuerySchema } from "./routes/live.js";
import { RetentionQuerySchema } from "./routes/memories.js";
import { JobsQuerySchema, RetrySchema, RunsQuerySchema, StatusQuerySchema } from "./routes/pipeline.js";
import { UsageQuerySchema } from "./routes/usage.js";
import { RebuildSchema, UserAppSchema } from "./routes/users.js";
import { ConsolidateSchema } from "./routes/webhooks.js";

type Method = "get" | "post" | "put" | "patch" | "delete";

/** One documented operation; the request schemas are the very zod schemas the routes validate with. */
interface Operation {
  method: Method;
  /** Hono-style path (`/v1/sessions/:id`); converted to `{id}` for the document. */
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success status and, where one exists, the response schema. */
  success: { status: number; description: string; schema?: z.ZodType; contentType?: string };
  /** Another success the same route gives for another kind of request (a JSON object). */
  alternative?: { status: number; description: string };
  /** No API key: health, the webhook (signed instead), this document. */
  public?: boolean;
}

const op = (method: Method, path: string, tag: string, summary: string, rest: Partial<Operation> = {}): Operation => ({
  method,
  path,
  tag,
  summary,
  success: { status: 200, description: "OK" },
  ...rest,
});
const created = { status: 201, description: "Created" };
const accepted = { status: 202, description: "Accepted: the pipeline will do the work" };

export const OPERATIONS: Operation[] = [
  op("get", "/healthz", "operations", "Liveness with a database round trip", { public: true }),
  op("post", "/v1/sessions", "sessions", "Create a session (E1)", { body: CreateSessionSchema, success: created }),
  op("get", "/v1/sessions", "sessions", "A user's sessions, newest first", { query: ListSessionsQuerySchema }),
  op("get", "/v1/sessions/:id", "sessions", "A session with its watermarks and scoped state"),
  op("post", "/v1/sessions/:id/end", "sessions", "End a session (idempotent); flushes replay, starts reflection"),
  op("patch", "/v1/sessions/:id/state", "sessions", "Apply session/user/app state deltas (E3)", { body: PatchStateSchema }),
  op("post", "/v1/sessions/:id/events", "sessions", "Append events (E2): gapless seq, idempotency keys", {
    body: AppendEventsSchema,
    success: created,
  }),
  op("get", "/v1/sessions/:id/events", "sessions", "Read the log in sequence order", { query: ReadEventsQuerySchema }),
  op(
    "post",
    "/v1/sessions/:id/events/:seq/redact",
    "sessions",
    "Redact one event: its words become a tombstone (seq kept), every memory derived from it is re-derived or retracted",
    { body: RedactEventSchema },
  ),
  op("post", "/v1/context", "retrieval", "Assemble a token-budgeted context window", {
    body: ContextRequestSchema,
    success: { status: 200, description: "The window", schema: ContextWindowSchema },
  }),
  op("post", "/v1/memories/search", "retrieval", "Hybrid search with relevance gating (S1, S2)", { body: SearchMemorySchema }),
  op("get", "/v1/memories/index", "retrieval", "Compact memory index for prompts (S6)", { query: MemoryIndexQuerySchema }),
  op("post", "/v1/memories/expand", "retrieval", "The full memories behind index ids", { body: ExpandMemoriesSchema }),
  op("post", "/v1/adk/search_memory", "retrieval", "Google ADK MemoryService.search_memory shape", { body: AdkSearchSchema }),
  op("post", "/v1/memories", "memories", "Structured ingestion through consolidation", { body: CreateMemorySchema, success: created }),
  op("get", "/v1/memories", "memories", "A user's memories: current, time slice, as of, all versions", { query: ListMemoriesQuerySchema }),
  op(
    "get",
    "/v1/memories/health",
    "memories",
    "Memory health: counts by type, retention histogram, low retention, forgotten in 7 days, top accessed",
    { query: RetentionQuerySchema },
  ),
  op("get", "/v1/memories/retention", "memories", "Retention distribution (R3)", { query: RetentionQuerySchema }),
  op("get", "/v1/memories/:id", "memories", "One memory with its source events (M3)"),
  op("patch", "/v1/memories/:id", "memories", "Pin or unpin a memory", { body: PatchMemorySchema }),
  op("delete", "/v1/memories/:id", "memories", "Soft delete (history kept)"),
  op("get", "/v1/memories/:id/history", "memories", "Every change of a memory (M4)"),
  op("put", "/v1/instructions/:key", "memories", "Add the next version of a procedural instruction", {
    body: PutInstructionSchema,
    success: created,
  }),
  op("get", "/v1/instructions/:key", "memories", "Latest or given version of an instruction", { query: InstructionQuerySchema }),
  op("get", "/v1/instructions/:key/versions", "memories", "All versions of an instruction", {
    query: InstructionQuerySchema.pick({ app_id: true }),
  }),
  op("post", "/v1/decay/run", "operations", "Run a decay pass now (dry run by default)", { body: DecayRunSchema }),
  op(
    "get",
    "/v1/pipeline/status",
    "operations",
    "Queued/running/failed runs, backlog (replay, reflection, embeddings), parked stages, settled",
    { query: StatusQuerySchema },
  ),
  op("get", "/v1/pipeline/runs", "operations", "A user's latest pipeline runs with their steps and errors (embedded executor)", {
    query: RunsQuerySchema,
  }),
  op("post", "/v1/pipeline/retry", "operations", "Retry a user's failed or parked pipeline stages", {
    body: RetrySchema,
    success: accepted,
  }),
  op("get", "/v1/pipeline/jobs", "operations", "Consolidation jobs with progress and errors (C7)", { query: JobsQuerySchema }),
  op("post", "/v1/users/:user_id/rebuild", "operations", "Derive a user's memory again from the log (E4), or preview it (`dry_run`)", {
    body: RebuildSchema,
    success: accepted,
    alternative: {
      status: 200,
      description:
        "`dry_run: true`: the memory derived again in a rolled-back shadow with the current providers, as its difference from what is stored (`counts`, `added`, `removed`, `changed`); nothing is applied",
    },
  }),
  op("delete", "/v1/users/:user_id", "operations", "Erase everything about a user", { query: UserAppSchema }),
  op(
    "get",
    "/v1/users/:user_id/export",
    "operations",
    "Everything stored about a user: sessions, events, memories with sources, history (one JSON record per line)",
    {
      query: UserAppSchema,
      success: { status: 200, description: "Records `{kind: session | event | memory | history, …}`", contentType: "application/x-ndjson" },
    },
  ),
  op(
    "get",
    "/v1/usage",
    "operations",
    "Cost metering: LLM and embedding calls and tokens per day, stage, provider and model; the daily budget",
    {
      query: UsageQuerySchema,
    },
  ),
  op("get", "/v1/live", "operations", "Live AG-UI events for a user or session (server-sent events)", {
    query: LiveQuerySchema,
    success: {
      status: 200,
      description: "ACTIVITY_SNAPSHOT (consolidation), STATE_DELTA (context budget), CUSTOM memory_hits / decay",
      contentType: "text/event-stream",
    },
  }),
  op(
    "post",
    "/v1/mcp",
    "operations",
    "MCP server (streamable HTTP, stateless): tools add_memory, search_memory, get_context, forget_memory",
    {
      success: { status: 200, description: "JSON-RPC response" },
    },
  ),
  op("post", "/v1/webhooks/consolidate", "operations", "Signed request for deep reflection", {
    body: ConsolidateSchema,
    success: accepted,
    public: true,
  }),
];

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });

const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }) });

/** The OpenAPI 3.1 description, generated from the schemas the routes validate with. */
export function openApiDocument(serverUrl?: string) {
  paths ??= documentPaths();
  return {
    openapi: "3.1.0",
    info: {
      title: "mnemo-pipeline",
      version: "0.1.0",
      description: "Event-sourced memory for LLM agents: sessions, events, memories, context windows.",
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An app's API key (`npx mnemo create-key`)" } },
    },
    security: [{ apiKey: [] }],
    tags: [{ name: "sessions" }, { name: "retrieval" }, { name: "memories" }, { name: "operations" }],
    paths,
  };
}

/** The paths depend only on the schemas, so they are converted once per process, on first request. */
let paths: Record<string, Record<string, unknown>> | undefined;

function documentPaths(): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    const path = operation.path.replace(/:(\w+)/g, "{$1}");
    const pathParameters = [...operation.path.matchAll(/:(\w+)/g)].map((match) => ({
      name: match[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const queryParameters = operation.query
      ? Object.entries(operation.query.shape).map(([name, schema]) => ({
          name,
          in: "query",
          required: !(schema as z.ZodType).safeParse(undefined).success,
          schema: jsonSchema(schema as z.ZodType),
        }))
      : [];
    const errors = Object.fromEntries(
      [
        ["400", "Invalid input; `details.issues[].field` names each field"],
        ...(operation.public
          ? []
          : [
              ["401", "Missing or invalid API key"],
              ["429", "Rate limited (see `retry-after`)"],
            ]),
        ["404", "Not found (also anything of another app)"],
        ...(operation.body ? [["415", "The body is not application/json"]] : []),
        ["503", "The database is unreachable (a restart, a failover); nothing was changed, retry after `retry-after` seconds"],
      ].map(([status, description]) => [status, { description, content: { "application/json": { schema: jsonSchema(ErrorSchema) } } }]),
    );
    paths[path] ??= {};
    paths[path][operation.method] = {
      operationId: `${operation.method}${operation.path.replace(/[/:](\w)/g, (_, letter: string) => letter.toUpperCase()).replace(/\W/g, "")}`,
      summary: operation.summary,
      tags: [operation.tag],
      ...(operation.public ? { security: [] } : {}),
      ...(pathParameters.length + queryParameters.length > 0 ? { parameters: [...pathParameters, ...queryParameters] } : {}),
      ...(operation.body
        ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(operation.body) } } } }
        : {}),
      responses: {
        [String(operation.success.status)]: {
          description: operation.success.description,
          content: {
            [operation.success.contentType ?? "application/json"]: {
              schema: operation.success.schema
                ? jsonSchema(operation.success.schema)
                : { type: operation.success.contentType ? "string" : "object" },
            },
          },
        },
        ...(operation.alternative
          ? {
              [String(operation.alternative.status)]: {
                description: operation.alternative.description,
                content: { "application/json": { schema: { type: "object" } } },
              },
            }
          : {}),
        ...errors,
      },
    };
  }
  return paths;
}
