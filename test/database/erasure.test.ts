import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { signWebhook } from "../../src/auth/webhook-signature.js";
import { queryRows } from "../../src/db/database.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import type { LanguageModel } from "../../src/providers/types.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { findTraces } from "../fixtures/trace-scan.js";
import { waitUntil } from "../fixtures/wait.js";

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
               (SELECT count(*) FROM executor_runs WHERE user_id = ${userId})::int AS runs`,
  );
  return row as Record<string, number>;
}

describe("erasing a user", () => {
  it("removes their events, state, memories, history and embeddings and cancels pending work; others stay", async () => {
    for (const userId of ["erased", "kept"]) {
      const sessionId = await createSession(runtime.app, userId);
      await call(runtime.app, "PATCH", `/v1/sessions/${sessionId}/state`, { session: { step: 1 }, user: { theme: "dark" } });
      await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
        events: [
          message("user", "I live in Porto and I love sailing."),
          message("user", "My sister is called Ines and works as a doctor."),
        ],
      });
      await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
      await call(runtime.app, "POST", "/v1/memories", { user_id: userId, type: "insight", content: "Prefers mornings for calls." });
    }
    await waitForSettled(runtime.app, "kept");
    const sessions = (await call(runtime.app, "GET", "/v1/sessions?user_id=erased")).body.sessions.map(
      (session: { id: string }) => session.id,
    );
    // A second session whose pipeline work is still queued when the erasure arrives.
    const pendingSession = await createSession(runtime.app, "erased");
    await call(runtime.app, "POST", `/v1/sessions/${pendingSession}/events`, {
      events: [message("user", "My passport number is X1234567.")],
    });
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
    expect(await remaining("erased", sessions)).toEqual({
      sessions: 0,
      events: 0,
      memories: 0,
      sources: 0,
      history: 0,
      state: 0,
      jobs: 0,
      runs: 0,
    });
    expect(
      (await call(runtime.app, "POST", "/v1/memories/search", { user_id: "erased", query: "passport Porto sailing", min_relevance: 0 }))
        .body.memories,
    ).toEqual([]);
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

describe("erasure leaves nothing", () => {
  it("no trace of what the user said, nor of who they are, in any column of any table — with pipeline runs in flight", async () => {
    const secret = "erasure-webhook-secret-0123";
    let summarizing = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gated: LanguageModel = {
      id: "gated-model",
      async summarize(request) {
        summarizing = true;
        await released;
        return offlineLanguageModel.summarize(request);
      },
      extract: offlineLanguageModel.extract,
    };
    const store = await startTestRuntime(
      { WEBHOOK_SECRET: secret, SWEEP_CRON: "* * * * * *", SWEEP_MIN_AGE: "1s" },
      { providers: { llm: gated } },
    );
    try {
      const suffix = Math.random().toString(36).slice(2, 8);
      const marker = `zqv${suffix}marker`;
      const userId = `erin${suffix}`;
      const sessionId = await createSession(store.app, userId, { metadata: { note: `about ${marker}` } });
      await call(store.app, "PATCH", `/v1/sessions/${sessionId}/state`, { session: { topic: marker }, user: { nickname: marker } });
      await call(store.app, "POST", `/v1/sessions/${sessionId}/events`, {
        events: [
          message("user", `I love sailing. My code word is ${marker}.`),
          message("assistant", `Noted, ${marker}.`),
          message("user", `Please remember ${marker} for me.`),
        ],
      });
      await call(store.app, "POST", "/v1/memories", { user_id: userId, type: "insight", content: `The user guards the word ${marker}.` });
      const body = JSON.stringify({ user_id: userId, session_id: sessionId });
      const signature = await signWebhook(secret, Math.floor(Date.now() / 1000), body);
      const hook = await store.app.request("/v1/webhooks/consolidate", {
        method: "POST",
        headers: { "content-type": "application/json", "webhook-signature": signature },
        body,
      });
      expect(hook.status).toBe(202);
      await call(store.app, "POST", `/v1/sessions/${sessionId}/end`);
      // A replay is in flight, its loaded backlog (the user's words) memoized in the executor's steps.
      await waitUntil(() => summarizing, "the replay to start summarising");
      expect((await findTraces(store.database.db, [marker])).map((trace) => trace.column)).toEqual(
        expect.arrayContaining(["public.executor_steps.data", "public.session_events.content"]),
      );

      const erased = await call(store.app, "DELETE", `/v1/users/${userId}`);
      expect(erased.status).toBe(200);
      expect(erased.body.erased.pipeline_runs).toBeGreaterThan(0);
      release();
      // The run in flight finds its row gone; whatever was queued for the user has nothing to do.
      await waitUntil(
        async () =>
          Number(
            (
              await queryRows<{ n: number }>(
                store.database.db,
                sql`SELECT count(*)::int AS n FROM executor_runs WHERE status IN ('queued', 'running') AND user_id IS NOT NULL`,
              )
            )[0]?.n,
          ) === 0,
        "the pipeline to go idle",
      );
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await findTraces(store.database.db, [marker, userId])).toEqual([]);
    } finally {
      release();
      await store.close();
    }
  });
});
