import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import { queryRows } from "../src/db/database.js";
import { executorRuns } from "../src/db/schema/index.js";
import { runDecay } from "../src/memory/lifecycle/decay.js";
import { DecayParametersSchema, retentionSql } from "../src/memory/lifecycle/retention.js";
import { decayRequested, embeddingsRequested } from "../src/pipeline/events.js";
import { seedMemories } from "./retrieval.js";
import { type Summary, summarize, time } from "./stats.js";

const json = { "content-type": "application/json" };
const BACKFILL_COUNT = 2_000;

export interface MaintenanceResult {
  decay: { memories: number; rawMs: number; directMs: number; pipelineMs: number; forgotten: number };
  backfill: { memories: number; embedderOnlyPerSecond: number; perSecond: number };
  appendUnderLoad: { raw: Summary; rows: Summary[] };
}

/**
 * Maintenance at scale: a full decay pass over `size` memories of one user (direct and as the
 * durable pipeline function), the embedding backfill rate, and append latency while both run.
 * Every number sits next to its floor measured in the same run.
 */
export async function benchMaintenance(runtime: Runtime, size: number): Promise<MaintenanceResult> {
  const { db } = runtime.database;
  const userId = `decay-${size}`;
  await seedMemories(runtime, userId, size, runtime.providers.embedder.model);
  // A realistic spread: last used when written, 0-3 uses.
  await db.execute(
    sql`UPDATE memories SET created_at = valid_at, last_accessed_at = valid_at, access_count = abs(hashtext(id::text)) % 4 WHERE user_id = ${userId}`,
  );
  await db.execute(sql`VACUUM ANALYZE memories`);

  const parameters = DecayParametersSchema.parse({});
  let forgotten = 0;
  const directMs = await time(async () => {
    forgotten = (await runDecay(db, { userId }, parameters, false, new Date())).forgotten.length;
  });
  // The floor: one statement computing every current memory's retention (what a pass judges by).
  const rawMs = await time(() =>
    db.execute(
      sql`SELECT count(*) FROM memories AS m WHERE m.user_id = ${userId} AND m.expired_at IS NULL AND ${retentionSql(0.1, sql`now()`)} < 0.1`,
    ),
  );
  const pipelineMs = await time(() => runDecayThroughPipeline(runtime, userId));

  // Backfill: memories written without vectors, embedded by the pipeline function.
  const texts = Array.from(
    { length: BACKFILL_COUNT },
    (_, i) =>
      `Backfill note ${i}: the user mentioned ${["a trip to Porto", "a new bike", "their sister's wedding", "learning the cello"][i % 4]} on day ${i % 90}.`,
  );
  const backfillUser = `backfill-${size}`;
  await db.execute(sql`
    INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, metadata)
    SELECT gen_random_uuid(), 'default', ${backfillUser}, 'episodic', 'turn', t.content, md5(t.content), 0.4, '{"origin": "bench"}'::jsonb
      FROM unnest(${sql.raw(`ARRAY[${texts.map((text) => `'${text.replaceAll("'", "''")}'`).join(",")}]`)}::text[]) AS t(content)`);

  // Append latency while the backfill and a decay pass run, next to raw inserts in the same window.
  const session = (await (
    await runtime.app.request("/v1/sessions", { method: "POST", headers: json, body: JSON.stringify({ user_id: "bench-load" }) })
  ).json()) as { id: string };
  const raw: number[] = [];
  const append: number[] = [];
  const backfillStarted = performance.now();
  let backfillMs = 0;
  await runtime.inngest.send(embeddingsRequested.create({ app_id: "default", user_id: backfillUser }));
  const decayDone = runDecayThroughPipeline(runtime, userId);
  let decayFinished = false;
  void decayDone.then(() => {
    decayFinished = true;
  });
  for (let i = 0; backfillMs === 0 || !decayFinished; i++) {
    // Requests arrive as I/O events; yielding lets timers and the embedder's replies run, as they
    // would between requests on a server (PGlite answers in microtasks, which alone starve them).
    await new Promise((resolve) => setImmediate(resolve));
    raw.push(
      await time(() =>
        db.execute(sql`INSERT INTO bench_raw_insert (id, session_id, seq, content) VALUES (${randomUUID()}, ${session.id}, ${i}, 'load')`),
      ),
    );
    append.push(
      await time(async () => {
        const response = await runtime.app.request(`/v1/sessions/${session.id}/events`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ events: [{ type: "message", role: "user", content: `message ${i} during maintenance` }] }),
        });
        if (response.status !== 201) throw new Error(`append failed: ${response.status}`);
      }),
    );
    if (backfillMs === 0 && i % 20 === 0) {
      const [left] = await queryRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM memories WHERE user_id = ${backfillUser} AND embedding IS NULL`,
      );
      if (Number(left?.n) === 0) backfillMs = performance.now() - backfillStarted;
    }
  }
  await decayDone;
  await runtime.background.settle();
  // The floor: the same embedder on the same texts in the same batch size, nothing else running.
  const embedderOnlyMs = await time(async () => {
    for (let start = 0; start < 512; start += 64) await runtime.providers.embedder.embed(texts.slice(start, start + 64));
  });
  return {
    decay: { memories: size, rawMs, directMs, pipelineMs, forgotten },
    backfill: {
      memories: BACKFILL_COUNT,
      embedderOnlyPerSecond: (512 / embedderOnlyMs) * 1000,
      perSecond: (BACKFILL_COUNT / backfillMs) * 1000,
    },
    appendUnderLoad: {
      raw: summarize("raw INSERT during backfill + decay", raw),
      rows: [summarize("append 1 event during backfill + decay", append)],
    },
  };
}

/** Sends a decay request for one user and waits until the pipeline run has completed. */
async function runDecayThroughPipeline(runtime: Runtime, userId: string): Promise<void> {
  const { db } = runtime.database;
  const done = async () =>
    (
      await db
        .select({ id: executorRuns.id })
        .from(executorRuns)
        .where(and(eq(executorRuns.functionId, "memory-pipeline-decay"), eq(executorRuns.status, "completed")))
    ).length;
  const before = await done();
  await runtime.inngest.send(decayRequested.create({ user_id: userId, cursor: null }));
  while ((await done()) === before) await new Promise((resolve) => setTimeout(resolve, 10));
}
