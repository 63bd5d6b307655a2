import { Hono } from "hono";
import { stream } from "hono/streaming";
import { z } from "zod";
import { previewRebuild } from "../../src/pipeline/derive/preview-rebuild.js";
import { resetDerivedMemory } from "../../src/pipeline/rebuild.js";
import { eraseUser } from "../../src/users/erase-user.js";
import { type ExportRecord, exportUser } from "../../src/users/export-user.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";
import { eventJson, historyJson, memoryJson, rebuildPreviewJson, sessionJson } from "../serializers.js";

export const UserAppSchema = z.strictObject({ app_id: z.string().trim().min(1).max(200).default("default") });
export const RebuildSchema = z.strictObject({
  ...UserAppSchema.shape,
  /** Derive in a rolled-back shadow and return the difference from what is stored, applying nothing. */
  dry_run: z.boolean().default(false),
});

/** Per-user operations. */
export const userRoutes = new Hono<AppEnv>()
  // Erasure: everything about the user goes, and their pending pipeline work is cancelled.
  .delete("/:user_id", validate("query", UserAppSchema), async (c) => {
    const scope = { appId: c.req.valid("query").app_id, userId: c.req.param("user_id") };
    const report = await eraseUser(c.var.deps.db, scope);
    // Nor in this process: appends not yet announced to the pipeline are dropped, and the vectors of the user's queries.
    c.var.deps.notifier.forgetUser(scope);
    c.var.deps.recall.queryVectors?.forgetUser(scope);
    // A per-user vector index names the user in its definition: it goes too (concurrently, so not in
    // the transaction; the periodic upkeep drops it if this process stops first).
    const forgetIndexed = c.var.deps.ann?.forgetUser?.bind(c.var.deps.ann);
    if (forgetIndexed) c.var.deps.background.run(c, "drop the user's vector index", () => forgetIndexed(scope));
    return c.json({ user_id: scope.userId, app_id: scope.appId, erased: report });
  })
  // Data access: everything stored about the user, one JSON record per line, in the API's shapes.
  .get("/:user_id/export", validate("query", UserAppSchema), async (c) => {
    const scope = { appId: c.req.valid("query").app_id, userId: c.req.param("user_id") };
    c.header("content-type", "application/x-ndjson; charset=utf-8");
    return stream(c, async (out) => {
      for await (const record of exportUser(c.var.deps.db, scope)) await out.write(`${JSON.stringify(exportJson(record))}\n`);
    });
  })
  .post("/:user_id/rebuild", validate("json", RebuildSchema), async (c) => {
    const deps = c.var.deps;
    const body = c.req.valid("json");
    const scope = { appId: body.app_id, userId: c.req.param("user_id") };
    if (body.dry_run) {
      const preview = await previewRebuild(deps, scope);
      return c.json(rebuildPreviewJson(scope, preview, { llm: deps.llm.id, embedder: deps.embedder.model }));
    }
    const plan = await resetDerivedMemory(deps.db, scope);
    deps.background.run(c, "emit rebuild", () => deps.notifier.rederive(plan.sessions));
    return c.json(
      { user_id: scope.userId, app_id: scope.appId, deleted_memories: plan.deletedMemories, sessions: plan.sessions.length },
      202,
    );
  });

/** An export record: what is stored, so a memory has no retention (computed when read, from its access count and time). */
function exportJson(record: ExportRecord) {
  switch (record.kind) {
    case "session":
      return { kind: record.kind, ...sessionJson(record.row) };
    case "event":
      return { kind: record.kind, ...eventJson(record.row) };
    case "memory":
      return { kind: record.kind, ...memoryJson(record.row, null, record.sources) };
    case "history":
      return { kind: record.kind, memory_id: record.row.memoryId, ...historyJson(record.row) };
  }
}
