import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { decayRequested, embeddingsRequested } from "../../src/pipeline/events.js";
import { createUseEmbedder } from "../../src/providers/offline/use-embedder.js";
import type { Embedder } from "../../src/providers/types.js";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { SETTLE_TIMEOUT_MS, testEnv } from "../fixtures/runtime.js";

let database: TestDatabase | undefined;
const opened: Runtime[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
  await database?.drop();
  database = undefined;
});

async function start(env: Record<string, string>, embedder?: Embedder): Promise<Runtime> {
  database ??= await freshDatabase({ persistent: true });
  const runtime = await startRuntime(testEnv({ ...database.env, ...env }), embedder ? { providers: { embedder } } : {});
  opened.push(runtime);
  return runtime;
}

/** Stops the executor without waiting for the run in flight and closes the files: a crash. */
async function crash(runtime: Runtime): Promise<void> {
  opened.splice(opened.indexOf(runtime), 1);
  await runtime.executor?.stop({ waitForRuns: false });
  await runtime.database.close();
}

const rows = <T>(runtime: Runtime, query: ReturnType<typeof sql>) => queryRows<T>(runtime.database.db, query);
const count = async (runtime: Runtime, query: ReturnType<typeof sql>) => Number((await rows<{ n: number }>(runtime, query))[0]?.n);

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const runOf = (runtime: Runtime, functionId: string) =>
  rows<{ id: string; status: string; steps: number }>(
    runtime,
    sql`SELECT r.id, r.status, (SELECT count(*)::int FROM executor_steps s WHERE s.run_id = r.id) AS steps FROM executor_runs r WHERE r.function_id = ${`memory-pipeline-${functionId}`}`,
  );

/**
 * 300 turns, each quoted by a summary of its own: the even turns are old, unimportant and
 * untouched (forgettable), the odd ones important; summaries are never forgotten.
 */
async function seedDecayer(runtime: Runtime): Promise<void> {
  await runtime.database.db.execute(sql`
    WITH said AS (
      SELECT i, gen_random_uuid() AS event_id, gen_random_uuid() AS turn_id, gen_random_uuid() AS summary_id FROM generate_series(1, 300) AS i
    ), turns AS (
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, created_at, valid_at, last_accessed_at)
      SELECT turn_id, 'default', 'decayer', 'episodic', 'turn', 'user: note ' || i || '.', md5('note ' || i),
             CASE WHEN i % 2 = 0 THEN 0.2 ELSE 0.9 END, now() - interval '40 days', now() - interval '40 days', now() - interval '40 days'
        FROM said
    ), summaries AS (
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, created_at, valid_at, last_accessed_at)
      SELECT summary_id, 'default', 'decayer', 'episodic', 'summary', 'The user said: note ' || i || '.', md5('summary ' || i),
             0.9, now() - interval '40 days', now() - interval '40 days', now() - interval '40 days'
        FROM said
    )
    INSERT INTO memory_sources (memory_id, event_id, session_id, seq)
    SELECT turn_id, event_id, '00000000-0000-4000-8000-00000000000d'::uuid, i FROM said
    UNION ALL SELECT summary_id, event_id, '00000000-0000-4000-8000-00000000000d'::uuid, i FROM said`);
}

describe("a decay pass that crashes half-way", () => {
  it("resumes after its last committed batch and forgets every qualifying memory exactly once", async () => {
    const first = await start({ DECAY_BATCH_SIZE: "10", DECAY_STEP_BUDGET: "0ms" });
    await seedDecayer(first);
    await first.inngest.send(decayRequested.create({ user_id: "decayer", cursor: null }));
    const forgotten = () => count(first, sql`SELECT count(*)::int AS n FROM memories WHERE user_id = 'decayer' AND expired_at IS NOT NULL`);
    // Batches walk the table in storage order: the crash comes once some turns are forgotten.
    await waitFor(
      async () => ((await runOf(first, "decay"))[0]?.steps ?? 0) >= 5 && (await forgotten()) > 0,
      "five decay batches, one of them forgetting",
    );
    const [before] = await runOf(first, "decay");
    expect(before?.status).not.toBe("completed");
    const forgottenBeforeCrash = await forgotten();
    expect(forgottenBeforeCrash).toBeGreaterThan(0);
    expect(forgottenBeforeCrash).toBeLessThan(150);
    await crash(first);

    const second = await start({ DECAY_BATCH_SIZE: "10", DECAY_STEP_BUDGET: "0ms" });
    await waitFor(async () => (await runOf(second, "decay"))[0]?.status === "completed", "the decay run to complete");
    const runs = await runOf(second, "decay");
    expect(runs).toHaveLength(1);
    expect(runs[0]?.id).toBe(before?.id);
    expect(
      await count(
        second,
        sql`SELECT count(*)::int AS n FROM memories WHERE user_id = 'decayer' AND expired_at IS NOT NULL AND importance < 0.5`,
      ),
    ).toBe(150);
    expect(
      await count(
        second,
        sql`SELECT count(*)::int AS n FROM memories WHERE user_id = 'decayer' AND expired_at IS NOT NULL AND importance >= 0.5`,
      ),
    ).toBe(0);
    // One DELETE history row per forgotten memory: nothing was forgotten twice.
    const history = await rows<{ memory_id: string; n: number }>(
      second,
      sql`SELECT memory_id, count(*)::int AS n FROM memory_history WHERE user_id = 'decayer' AND operation = 'DELETE' GROUP BY memory_id`,
    );
    expect(history).toHaveLength(150);
    expect(history.every((row) => Number(row.n) === 1)).toBe(true);
  });
});

describe("a decay pass's steps", () => {
  it("run batches for their time budget, each batch its own transaction, and forget every qualifying memory once", async () => {
    const runtime = await start({ DECAY_BATCH_SIZE: "10" });
    await seedDecayer(runtime);
    await runtime.inngest.send(decayRequested.create({ user_id: "decayer", cursor: null }));
    await waitFor(async () => (await runOf(runtime, "decay"))[0]?.status === "completed", "the decay run to complete");
    // 60 batches of 10; at one batch per step the run would have 61 steps.
    expect((await runOf(runtime, "decay"))[0]?.steps).toBeLessThanOrEqual(10);
    expect(await count(runtime, sql`SELECT count(*)::int AS n FROM memories WHERE user_id = 'decayer' AND expired_at IS NOT NULL`)).toBe(
      150,
    );
    expect(
      await count(runtime, sql`SELECT count(*)::int AS n FROM memory_history WHERE user_id = 'decayer' AND operation = 'DELETE'`),
    ).toBe(150);
  });
});

describe("an embedding backfill that crashes half-way", () => {
  it("resumes after its last stored batch, embeds every memory once and never overwrites a stored vector", async () => {
    const offline = createUseEmbedder();
    let calls = 0;
    let hang = false;
    const hangingOnSecondBatch: Embedder = {
      model: offline.model,
      dimensions: offline.dimensions,
      embed: (texts) => {
        calls++;
        if (calls === 2) {
          hang = true;
          return new Promise<never>(() => undefined);
        }
        return offline.embed(texts);
      },
    };
    const first = await start({ EMBED_BATCH_SIZE: "4" }, hangingOnSecondBatch);
    await first.database.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, created_at)
      SELECT gen_random_uuid(), 'default', 'embedder', 'insight', NULL, 'The user mentioned hobby number ' || i, md5('hobby ' || i), 0.5, now() - make_interval(secs => 100 - i)
        FROM generate_series(1, 10) AS i`);
    await first.inngest.send(embeddingsRequested.create({ app_id: "default", user_id: "embedder" }));
    await waitFor(async () => hang, "the second batch to start");
    const embeddedBeforeCrash = await rows<{ id: string; embedded_at: string }>(
      first,
      sql`SELECT id, embedded_at FROM memories WHERE user_id = 'embedder' AND embedding IS NOT NULL`,
    );
    expect(embeddedBeforeCrash).toHaveLength(4);
    const [crashedRun] = await runOf(first, "embed-backfill");
    await crash(first);

    const embeddedTexts: string[] = [];
    const counting: Embedder = {
      ...offline,
      embed: (texts) => {
        embeddedTexts.push(...texts);
        return offline.embed(texts);
      },
    };
    const second = await start({ EMBED_BATCH_SIZE: "4" }, counting);
    // The crashed run itself resumes and completes (a minute's sweep may add a run with nothing left to do).
    await waitFor(
      async () => (await runOf(second, "embed-backfill")).some((run) => run.id === crashedRun?.id && run.status === "completed"),
      "the backfill run to complete",
    );
    // The six memories left, each embedded once; the four stored before the crash kept their vectors.
    expect(embeddedTexts).toHaveLength(6);
    expect(new Set(embeddedTexts).size).toBe(6);
    expect(await count(second, sql`SELECT count(*)::int AS n FROM memories WHERE user_id = 'embedder' AND embedding IS NULL`)).toBe(0);
    const after = await rows<{ id: string; embedded_at: string }>(
      second,
      sql`SELECT id, embedded_at FROM memories WHERE user_id = 'embedder' AND id IN ${embeddedBeforeCrash.map((row) => row.id)}`,
    );
    expect(after.map((row) => new Date(row.embedded_at).getTime()).sort()).toEqual(
      embeddedBeforeCrash.map((row) => new Date(row.embedded_at).getTime()).sort(),
    );
  });
});
