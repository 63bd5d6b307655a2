import { sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { Database } from "../../src/db/database.js";
import { queryRows } from "../../src/db/database.js";
import { assertSameApp } from "./auth.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The env this middleware needs: a database among the context's dependencies. */
export type DatabaseEnv = { Variables: { deps: { db: Database } } };

/**
 * For routes addressing a session, memory or entity by `:id`: an app key may only reach its own app's
 * rows; another app's id is answered 404, as if it did not exist. Checked before the handler, so
 * a write to another app's resource never starts. Unknown ids fall through to the handler's 404.
 */
export function ownedByCaller<E extends DatabaseEnv>(table: "sessions" | "memories" | "entities"): MiddlewareHandler<E> {
  const what = { sessions: "session", memories: "memory", entities: "entity" }[table];
  return async (c, next) => {
    const principal = c.get("principal");
    const id = c.req.param("id");
    if (principal?.kind === "app" && id && UUID.test(id)) {
      const [owner] = await queryRows<{ app_id: string }>(
        c.var.deps.db,
        sql`SELECT app_id FROM ${sql.identifier(table)} WHERE id = ${id}::uuid`,
      );
      if (owner) assertSameApp(principal, owner.app_id, what, id);
    }
    await next();
  };
}
