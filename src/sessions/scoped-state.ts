import { and, eq, or, sql } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { type StateScope, scopedState } from "../db/schema/index.js";
import type { PatchState } from "./schemas.js";
import type { SessionRow } from "./session-store.js";

export type ScopedState = Record<StateScope, Record<string, unknown>>;

function owners(session: Pick<SessionRow, "id" | "userId">): Record<StateScope, string> {
  return { session: session.id, user: session.userId, app: "" };
}

/** The session's state in its three scopes: its own, its user's within the app, the app's. */
export async function readState(db: Database, session: Pick<SessionRow, "id" | "appId" | "userId">): Promise<ScopedState> {
  const owner = owners(session);
  const rows = await db
    .select({ scope: scopedState.scope, data: scopedState.data })
    .from(scopedState)
    .where(
      and(
        eq(scopedState.appId, session.appId),
        or(
          and(eq(scopedState.scope, "session"), eq(scopedState.ownerId, owner.session)),
          and(eq(scopedState.scope, "user"), eq(scopedState.ownerId, owner.user)),
          and(eq(scopedState.scope, "app"), eq(scopedState.ownerId, owner.app)),
        ),
      ),
    );
  const state: ScopedState = { session: {}, user: {}, app: {} };
  for (const row of rows) state[row.scope] = row.data;
  return state;
}

/**
 * Applies scoped deltas atomically: each scope's keys are merged into the stored object and keys
 * given as `null` are removed. Every scope is one upsert, all in one transaction.
 */
export async function patchState(
  db: Database,
  session: Pick<SessionRow, "id" | "appId" | "userId">,
  delta: PatchState,
): Promise<ScopedState> {
  const owner = owners(session);
  await db.transaction(async (tx) => {
    for (const scope of ["session", "user", "app"] as const) {
      const changes = delta[scope];
      if (!changes) continue;
      const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== null));
      const removed = Object.keys(changes).filter((key) => changes[key] === null);
      await tx
        .insert(scopedState)
        .values({ appId: session.appId, scope, ownerId: owner[scope], data: set })
        .onConflictDoUpdate({
          target: [scopedState.appId, scopedState.scope, scopedState.ownerId],
          set: {
            data: sql`(${scopedState.data} || ${JSON.stringify(set)}::jsonb) - ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(removed)}::jsonb))`,
            updatedAt: sql`now()`,
          },
        });
    }
  });
  return readState(db, session);
}
