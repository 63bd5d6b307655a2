import { stream } from "hono/streaming";
import { z } from "zod";
import { auditFacts } from "../../src/memory/contradictions/audit-facts.js";
import { type DerivationDeps, previewRebuild } from "../../src/pipeline/derive/preview-rebuild.js";
import { resetDerivedMemory } from "../../src/pipeline/rebuild.js";
import { erasedAnything, eraseUser } from "../../src/users/erase-user.js";
import { exportUser } from "../../src/users/export-user.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, documentedSchema, jsonAnswer, jsonBody } from "../contract/define-route.js";
import { ExportRecordSchema, exportJson } from "../json/export-record.js";
import { FactAuditSchema, factAuditJson } from "../json/fact-audit.js";
import { RebuildPreviewSchema, rebuildPreviewJson } from "../json/rebuild-preview.js";

export const UserAppSchema = z.strictObject({ app_id: ExternalIdSchema.default("default") });
export const RebuildSchema = z.strictObject({
  ...UserAppSchema.shape,
  /** Derive in a rolled-back shadow and return the difference from what is stored, applying nothing. */
  dry_run: z.boolean().default(false),
});

const UserPath = z.object({ user_id: ExternalIdSchema.describe("The end user") });
const count = z.number().int();
const tags = ["operations"];

const erase = defineRoute({
  method: "delete",
  path: "/{user_id}",
  tags,
  summary: "Erase everything about a user",
  request: { params: UserPath, query: UserAppSchema },
  responses: {
    200: jsonAnswer(
      "How many rows of each kind were erased",
      z.object({
        user_id: z.string(),
        app_id: z.string(),
        erased: z.object({
          sessions: count,
          events: count,
          memories: count,
          history: count,
          state: count,
          jobs: count,
          pipeline_runs: count,
          pipeline_steps: count,
          webhook_deliveries: count,
          usage_rows: count,
          failures: count,
          entities: count.describe("Entities of the user's graph, with their mentions"),
          relations: count.describe("Relations of the user's graph, with their sources"),
          graph_history: count,
        }),
      }),
    ),
  },
});

const exportAll = defineRoute({
  method: "get",
  path: "/{user_id}/export",
  tags,
  summary: "Everything stored about a user: sessions, events, memories with sources, history (one JSON record per line)",
  request: { params: UserPath, query: UserAppSchema },
  responses: {
    200: {
      description: "Newline-delimited JSON: one record `{kind: session | event | memory | history, …}` per line",
      content: { "application/x-ndjson": { schema: documentedSchema(ExportRecordSchema, "output") } },
    },
  },
});

const rebuild = defineRoute({
  method: "post",
  path: "/{user_id}/rebuild",
  tags,
  summary: "Derive a user's memory again from the log, or preview it (`dry_run`)",
  request: { params: UserPath, body: jsonBody(RebuildSchema) },
  responses: {
    202: jsonAnswer(
      "The derived memory was reset; the pipeline derives it again",
      z.object({ user_id: z.string(), app_id: z.string(), deleted_memories: count, sessions: count }),
    ),
    200: jsonAnswer(
      "`dry_run: true`: the memory derived again in a rolled-back shadow with the current providers, as its difference from what is stored; nothing is applied",
      RebuildPreviewSchema,
    ),
  },
});

const auditReport = defineRoute({
  method: "get",
  path: "/{user_id}/facts/audit",
  tags,
  summary: "Dry run of the contradiction audit: pairs of the user's current facts that cannot both be true; nothing is changed",
  request: { params: UserPath, query: UserAppSchema },
  responses: { 200: jsonAnswer("The pairs found; `repaired` is 0", FactAuditSchema) },
});

const auditRepair = defineRoute({
  method: "post",
  path: "/{user_id}/facts/audit",
  tags,
  summary: "Contradiction audit with repair: the older fact of each pair is ended at the newer one's time, with history",
  request: { params: UserPath, body: jsonBody(UserAppSchema) },
  responses: { 200: jsonAnswer("The pairs found and how many facts were ended", FactAuditSchema) },
});

/** Per-user operations. */
export const userRoutes = apiRoutes<"db" | "clock" | "notifier" | "recall" | "ann" | "background" | "erasureScrub" | keyof DerivationDeps>()
  // Erasure: everything about the user goes, and their pending pipeline work is cancelled.
  .openapi(erase, async (c) => {
    const scope = { appId: c.req.valid("query").app_id, userId: c.req.valid("param").user_id };
    const report = await eraseUser(c.var.deps.db, scope);
    // Nor in this process: appends not yet announced to the pipeline are dropped, and the vectors of the user's queries.
    c.var.deps.notifier.forgetUser(scope);
    c.var.deps.recall.queryVectors?.forgetUser(scope);
    // A per-user vector index names the user in its definition: it goes too (concurrently, so not in
    // the transaction; the periodic upkeep drops it if this process stops first).
    const forgetIndexed = c.var.deps.ann?.forgetUser?.bind(c.var.deps.ann);
    if (forgetIndexed) c.var.deps.background.run(c, "drop the user's vector index", () => forgetIndexed(scope));
    // Deleted rows stay in the files until rewritten or reused: the scrub runs after the response
    // (at most once per ERASURE_SCRUB_INTERVAL), and only when rows were deleted.
    const scrub = c.var.deps.erasureScrub;
    if (scrub && erasedAnything(report)) c.var.deps.background.run(c, "scrub the erased user's relations", () => scrub.afterErasure());
    return c.json({ user_id: scope.userId, app_id: scope.appId, erased: report }, 200);
  })
  // Data access: everything stored about the user, one JSON record per line, in the API's shapes.
  .openapi(exportAll, async (c) => {
    const scope = { appId: c.req.valid("query").app_id, userId: c.req.valid("param").user_id };
    c.header("content-type", "application/x-ndjson; charset=utf-8");
    const lines = stream(c, async (out) => {
      for await (const record of exportUser(c.var.deps.db, scope)) await out.write(`${JSON.stringify(exportJson(record))}\n`);
    });
    // zod-openapi types any `application/…json` answer as one JSON value and has no type for a stream of lines.
    return lines as never;
  })
  .openapi(auditReport, async (c) => {
    const scope = { appId: c.req.valid("query").app_id, userId: c.req.valid("param").user_id };
    const audit = await auditFacts(c.var.deps.db, scope, { repair: false, actor: "api", now: c.var.deps.clock.now() });
    return c.json(factAuditJson(scope, true, audit), 200);
  })
  .openapi(auditRepair, async (c) => {
    const scope = { appId: c.req.valid("json").app_id, userId: c.req.valid("param").user_id };
    const audit = await auditFacts(c.var.deps.db, scope, { repair: true, actor: "api", now: c.var.deps.clock.now() });
    return c.json(factAuditJson(scope, false, audit), 200);
  })
  .openapi(rebuild, async (c) => {
    const deps = c.var.deps;
    const body = c.req.valid("json");
    const scope = { appId: body.app_id, userId: c.req.valid("param").user_id };
    if (body.dry_run) {
      const preview = await previewRebuild(deps, scope);
      return c.json(rebuildPreviewJson(scope, preview, { llm: deps.llm.id, embedder: deps.embedder.model }), 200);
    }
    const plan = await resetDerivedMemory(deps.db, scope);
    deps.background.run(c, "emit rebuild", () => deps.notifier.rederive(plan.sessions));
    return c.json(
      { user_id: scope.userId, app_id: scope.appId, deleted_memories: plan.deletedMemories, sessions: plan.sessions.length },
      202,
    );
  });
