import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

/** Rows anywhere in the store that still mention the user or their sessions. */
async function remaining(userId: string, sessionIds: string[]): Promise<Record<string, number>> {
  const ids = sessionIds.length > 0 ? sessionIds : ["00000000-0000-0000-0000-000000000000"];
  const [row] = await queryRows<Record<string, number>>(
    runtime.database.db,
    sql`SELECT (SELECT count(*) FROM sessions WHERE user_id = ${userId})::int AS sessions,
               (SELECT count(*) FROM session_events WHERE session_id::text IN ${ids})::int AS events,
               (SELECT count(*) FROM memories WHERE user_id = ${userId})::int AS memories,
               (SELECT count(*) FROM memory_sources WHERE session_id::text IN ${ids})::int AS sources,
               (SELECT count(*) FROM memory_history WHERE user_id = ${userId})::int AS history,
               (SELECT count(*) FROM scoped_state WHERE owner_id = ${userId} OR owner_id IN ${ids})::int AS state,
               (SELECT count(*) FROM consolidation_jobs WHERE user_id = ${userId})::int AS jobs,
               (SELECT count(*) FROM executor_runs WHERE user_id = ${userId} AND status IN ('queued', 'running'))::int AS pending_runs`,
  );
  return row as Record<string, number>;
}

describe("erasing a user", () => {
  it("removes their events, state, memories, history and embeddings and cancels pending work; others stay", async () => {
    for (const userId of ["erased", "kept"]) {
      const sessionId = await createSession(runtime.app, userId);
      await call(runtime.app, "PATCH", `/v1/sessions/${sessionId}/state`, { session: { step: 1 }, user: { theme: "dark" } });
      await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
        events: [message("user", "I live in Porto and I love sailing."), message("user", "My sister is called Ines and works as a doctor.")],
      });
      await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
      await call(runtime.app, "POST", "/v1/memories", { user_id: userId, type: "insight", content: "Prefers mornings for calls." });
    }
    await waitForSettled(runtime.app, "kept");
    const sessions = (await call(runtime.app, "GET", "/v1/sessions?user_id=erased")).body.sessions.map((session: { id: string }) => session.id);
    // A second session whose pipeline work is still queued when the erasure arrives.
    const pendingSession = await createSession(runtime.app, "erased");
    await call(runtime.app, "POST", `/v1/sessions/${pendingSession}/events`, { events: [message("user", "My passport number is X1234567.")] });
    sessions.push(pendingSession);

    const before = await remaining("erased", sessions);
    expect(before.sessions).toBe(2);
    expect(before.memories).toBeGreaterThan(0);

    const { status, body } = await call(runtime.app, "DELETE", "/v1/users/erased");
    expect(status).toBe(200);
    expect(body.erased).toMatchObject({ sessions: 2, events: 3 });
    expect(body.erased.memories).toBe(before.memories);

    await new Promise((resolve) => setTimeout(resolve, 500));
    await waitForSettled(runtime.app, "erased");
    expect(await remaining("erased", sessions)).toEqual({ sessions: 0, events: 0, memories: 0, sources: 0, history: 0, state: 0, jobs: 0, pending_runs: 0 });
    expect((await call(runtime.app, "POST", "/v1/memories/search", { user_id: "erased", query: "passport Porto sailing", min_relevance: 0 })).body.memories).toEqual([]);
    expect((await call(runtime.app, "GET", `/v1/sessions/${pendingSession}`)).status).toBe(404);

    const kept = await remaining("kept", []);
    expect(kept.sessions).toBe(1);
    expect(kept.memories).toBeGreaterThan(0);
  });

  it("refuses bad input without touching data", async () => {
    expect((await call(runtime.app, "DELETE", "/v1/users/kept?app_id=")).status).toBe(400);
    expect((await call(runtime.app, "DELETE", "/v1/users/kept?surprise=1")).status).toBe(400);
    expect((await call(runtime.app, "GET", "/v1/sessions?user_id=kept")).body.sessions).toHaveLength(1);
  });
});
