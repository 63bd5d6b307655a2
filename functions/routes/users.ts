import { Hono } from "hono";
import { z } from "zod";
import { eraseUser } from "../../src/users/erase-user.js";
import { resetDerivedMemory } from "../../src/memory/rebuild.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

export const UserAppSchema = z.strictObject({ app_id: z.string().trim().min(1).max(200).default("default") });

/** Per-user operations. */
export const userRoutes = new Hono<AppEnv>()
  // Erasure: everything about the user goes, and their pending pipeline work is cancelled.
  .delete("/:user_id", validate("query", UserAppSchema), async (c) => {
    const scope = { appId: c.req.valid("query").app_id, userId: c.req.param("user_id") };
    const report = await eraseUser(c.var.deps.db, scope);
    return c.json({ user_id: scope.userId, app_id: scope.appId, erased: report });
  })
  .post("/:user_id/rebuild", validate("json", UserAppSchema), async (c) => {
  const { db, notifier, background } = c.var.deps;
  const scope = { appId: c.req.valid("json").app_id, userId: c.req.param("user_id") };
  const plan = await resetDerivedMemory(db, scope);
  background.run(c, "emit rebuild", () => notifier.rederive(plan.sessions));
  return c.json({ user_id: scope.userId, app_id: scope.appId, deleted_memories: plan.deletedMemories, sessions: plan.sessions.length }, 202);
});
