import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { type Database, queryRows } from "../../src/db/database.js";
import { writeChunkEpisodes } from "../../src/pipeline/derive/replay-chunk.js";
import { resetDerivedMemory } from "../../src/pipeline/rebuild.js";
import { loadReplayChunk } from "../../src/pipeline/replay-backlog.js";
import { eraseUser } from "../../src/users/erase-user.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * Every writer of a user's derived memory takes the same lock. On a real Postgres a replay that
 * commits inside an erasure would leave turns behind, and one inside a rebuild would duplicate
 * them; these tests hold a replay's transaction open at its last statement while the other
 * writer starts. (PGlite has one connection, so there the race cannot happen at all.)
 */
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** `db` whose transactions stay open after their last statement until `hold` resolves. */
function holdingCommits(db: Database, hold: () => Promise<void>): Database {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "transaction") return Reflect.get(target, property, receiver);
      return <T>(work: (tx: Parameters<Parameters<Database["transaction"]>[0]>[0]) => Promise<T>) =>
        target.transaction(async (tx) => {
          const result = await work(tx);
          await hold();
          return result;
        });
    },
  });
}

async function replayHeldOpen(runtime: Runtime, sessionId: string) {
  const chunk = await loadReplayChunk(runtime.database.db, sessionId, 40);
  if (!chunk) throw new Error("nothing to replay");
  let inside = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = holdingCommits(runtime.database.db, async () => {
    inside = true;
    await released;
  });
  const write = writeChunkEpisodes(
    held,
    { ...chunk, jobId: "00000000-0000-4000-8000-000000000000" },
    { text: "The user talked about their garden." },
    { model: "test", now: new Date() },
  );
  await waitUntil(() => inside, "the replay transaction to reach its last statement");
  return { write, release };
}

async function seed(userId: string): Promise<{ runtime: Runtime; sessionId: string }> {
  // The pipeline stays off: the test plays the replay itself.
  const started = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
  runtime = started;
  const sessionId = await createSession(started.app, userId);
  await call(started.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: [
      message("user", "I grow tomatoes on my balcony."),
      message("assistant", "Lovely! How big is the balcony?"),
      message("user", "The basil is doing well too."),
    ],
  });
  return { runtime: started, sessionId };
}

describe("one lock for every writer of a user's derived memory", () => {
  it("an erasure that starts during a replay leaves nothing behind", async () => {
    const { runtime, sessionId } = await seed("erased-mid-replay");
    const replay = await replayHeldOpen(runtime, sessionId);
    const erasure = eraseUser(runtime.database.db, { appId: "default", userId: "erased-mid-replay" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    replay.release();
    await replay.write;
    await erasure;
    const [left] = await queryRows<{ memories: number; sources: number; history: number; sessions: number }>(
      runtime.database.db,
      sql`SELECT (SELECT count(*)::int FROM memories WHERE user_id = 'erased-mid-replay') AS memories,
                 (SELECT count(*)::int FROM memory_sources WHERE session_id = ${sessionId}) AS sources,
                 (SELECT count(*)::int FROM memory_history WHERE user_id = 'erased-mid-replay') AS history,
                 (SELECT count(*)::int FROM sessions WHERE user_id = 'erased-mid-replay') AS sessions`,
    );
    expect(left).toEqual({ memories: 0, sources: 0, history: 0, sessions: 0 });
  });

  it("a rebuild that starts during a replay leaves no duplicate", async () => {
    const { runtime, sessionId } = await seed("rebuilt-mid-replay");
    const scope = { appId: "default", userId: "rebuilt-mid-replay" };
    const replay = await replayHeldOpen(runtime, sessionId);
    const rebuild = resetDerivedMemory(runtime.database.db, scope);
    await new Promise((resolve) => setTimeout(resolve, 300));
    replay.release();
    await replay.write;
    const plan = await rebuild;
    // The rest of the rebuild: the pipeline derives everything again.
    await runtime.executor?.start();
    await runtime.notifier.rederive(plan.sessions);
    await waitForSettled(runtime.app, scope.userId);
    const turns = await queryRows<{ seq: number; n: number }>(
      runtime.database.db,
      sql`SELECT (metadata ->> 'seq')::int AS seq, count(*)::int AS n FROM memories
           WHERE user_id = ${scope.userId} AND subtype = 'turn' AND expired_at IS NULL GROUP BY 1 ORDER BY 1`,
    );
    expect(turns).toEqual([
      { seq: 1, n: 1 },
      { seq: 2, n: 1 },
      { seq: 3, n: 1 },
    ]);
  });
});
