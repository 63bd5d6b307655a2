import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { createUseEmbedder } from "../../src/providers/offline/use-embedder.js";
import type { Embedder } from "../../src/providers/types.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/** Debounces no test could wait out: what settles here settles because the session ended. */
const LONG_DEBOUNCES = { REPLAY_DEBOUNCE: "1h", REPLAY_DEBOUNCE_TIMEOUT: "2h", REFLECTION_DEBOUNCE: "1h" };

const opened: Runtime[] = [];
afterEach(async () => {
  for (const runtime of opened.splice(0)) await runtime.close();
});

async function runsOf(runtime: Runtime, user: string) {
  return queryRows<{ function_id: string; status: string }>(
    runtime.database.db,
    sql`SELECT function_id, status FROM executor_runs WHERE user_id = ${user} ORDER BY function_id, status`,
  );
}

async function converseAndEnd(runtime: Runtime, user: string): Promise<string> {
  const sessionId = await createSession(runtime.app, user);
  const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: [
      message("user", "I live in Ghent and I work as a baker."),
      message("assistant", "Early mornings then! What do you bake most?"),
      message("user", "Mostly rye loaves, and plum cake on Sundays."),
    ],
  });
  expect(appended.status).toBe(201);
  expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`)).status).toBe(200);
  return sessionId;
}

describe("a session that has ended", () => {
  it("is replayed, reflected and embedded at once, without waiting for the debounces, and cancels the replay waiting for quiet", async () => {
    const runtime = await startTestRuntime(LONG_DEBOUNCES);
    opened.push(runtime);
    const sessionId = await converseAndEnd(runtime, "closer");
    await waitForSettled(runtime.app, "closer", 90_000);

    const session = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body;
    expect(session).toMatchObject({ replayed_seq: 3, reflected_seq: 3 });
    const turns = (await call(runtime.app, "GET", "/v1/memories?user_id=closer&subtype=turn")).body.memories;
    expect(turns).toHaveLength(3);
    // Written with their vectors by replay itself: no backfill was needed.
    expect(turns.every((turn: { embedded: boolean }) => turn.embedded)).toBe(true);
    const facts = (await call(runtime.app, "GET", "/v1/memories?user_id=closer&type=semantic")).body.memories;
    expect(facts.map((fact: { key: string }) => fact.key)).toContain("profile:location");
    const runs = await runsOf(runtime, "closer");
    expect(runs.filter((run) => run.function_id.endsWith("embed-backfill"))).toEqual([]);
    expect(runs).toContainEqual({ function_id: "memory-pipeline-fast-replay", status: "cancelled" });
    expect(runs).toContainEqual({ function_id: "memory-pipeline-fast-replay-ended", status: "completed" });
    expect(runs).toContainEqual({ function_id: "memory-pipeline-deep-reflection-ended", status: "completed" });
  });

  it("leaves its episodes to the backfill when the embedder fails during replay, and the backfill fills them", async () => {
    const offline = createUseEmbedder();
    let calls = 0;
    const failingOnce: Embedder = {
      model: offline.model,
      dimensions: offline.dimensions,
      embed: (texts, options) => {
        calls++;
        if (calls === 1) return Promise.reject(new Error("embedder unavailable"));
        return offline.embed(texts, options);
      },
    };
    const runtime = await startTestRuntime({ ...LONG_DEBOUNCES, REFLECTION_DEBOUNCE: "100ms" }, { providers: { embedder: failingOnce } });
    opened.push(runtime);
    await converseAndEnd(runtime, "unlucky");
    await waitForSettled(runtime.app, "unlucky", 90_000);

    const turns = (await call(runtime.app, "GET", "/v1/memories?user_id=unlucky&subtype=turn")).body.memories;
    expect(turns).toHaveLength(3);
    expect(turns.every((turn: { embedded: boolean }) => turn.embedded)).toBe(true);
    const runs = await runsOf(runtime, "unlucky");
    expect(runs).toContainEqual({ function_id: "memory-pipeline-embed-backfill", status: "completed" });
    expect(runs.filter((run) => run.status === "failed")).toEqual([]);
  });
});
