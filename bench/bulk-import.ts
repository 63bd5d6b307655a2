import { sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { queryRows } from "../src/db/database.js";
import type { GeneratedSession } from "./generated-history.js";

const json = { "content-type": "application/json" };

export interface BulkImportReport {
  sessions: number;
  turns: number;
  /** Posting every session (create, one append of all its turns, end), through the HTTP app. */
  postMs: number;
  /** From the last append's answer until `GET /v1/pipeline/status` says settled. */
  digestMs: number;
  /** The embedder alone, the same turns' texts as the turn memories hold them, all at once. */
  embedderFloorMs: number;
  /** Per durable function: runs, memoized steps, and when its last run finished after the last append. */
  stages: { function: string; runs: number; steps: number; lastFinishedMs: number }[];
  memories: { type: string; count: number; embedded: number }[];
}

async function post(runtime: Runtime, path: string, body?: unknown): Promise<{ id?: string }> {
  const response = await runtime.app.request(path, {
    method: "POST",
    headers: json,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status >= 300) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id?: string };
}

/**
 * A whole history imported the way `mnemo import` does it (each session created at its date, its
 * turns in one append, then ended), timed until the user's memory is digested (turn memories,
 * summaries, facts, vectors), next to its floor: the embedder alone on the same turns, measured
 * just before on the same process.
 *
 * @example
 * const report = await benchBulkImport(runtime, generateHistory({ sessions: 50, turnsPerSession: 10 }), "bulk-user");
 */
export async function benchBulkImport(runtime: Runtime, history: GeneratedSession[], userId: string): Promise<BulkImportReport> {
  const texts = history.flatMap((session) => session.turns.map((turn) => `${turn.role}: ${turn.content}`));
  const { embedder } = runtime.providers;
  await embedder.embed(["warming the model up"]);
  const floorStarted = performance.now();
  const batches: string[][] = [];
  for (let at = 0; at < texts.length; at += 64) batches.push(texts.slice(at, at + 64));
  await Promise.all(batches.map((batch) => embedder.embed(batch)));
  const embedderFloorMs = performance.now() - floorStarted;

  const postStarted = performance.now();
  for (const session of history) {
    const created = await post(runtime, "/v1/sessions", { user_id: userId, started_at: session.startedAt.toISOString() });
    const events = session.turns.map((turn, index) => ({
      type: "message",
      role: turn.role,
      content: turn.content,
      occurred_at: new Date(session.startedAt.getTime() + index * 30_000).toISOString(),
    }));
    await post(runtime, `/v1/sessions/${created.id}/events`, { events });
    await post(runtime, `/v1/sessions/${created.id}/end`);
  }
  const lastAppend = performance.now();
  const lastAppendAt = Date.now();
  await waitForSettled(runtime.app, userId, { intervalMs: 200, timeoutMs: 600_000 });
  const digestMs = performance.now() - lastAppend;

  const stages = await queryRows<{ function: string; runs: number; steps: number; last_finished_ms: number }>(
    runtime.database.db,
    sql`SELECT r.function_id AS function, count(*)::int AS runs,
               coalesce(sum((SELECT count(*) FROM executor_steps s WHERE s.run_id = r.id)), 0)::int AS steps,
               (extract(epoch FROM max(r.finished_at)) * 1000 - ${lastAppendAt})::float8 AS last_finished_ms
          FROM executor_runs r WHERE r.user_id = ${userId} GROUP BY r.function_id ORDER BY r.function_id`,
  );
  const memories = await queryRows<{ type: string; count: number; embedded: number }>(
    runtime.database.db,
    sql`SELECT type, count(*)::int AS count, count(embedding)::int AS embedded FROM memories WHERE user_id = ${userId} GROUP BY type ORDER BY type`,
  );
  return {
    sessions: history.length,
    turns: texts.length,
    postMs: lastAppend - postStarted,
    digestMs,
    embedderFloorMs,
    stages: stages.map((stage) => ({
      function: stage.function,
      runs: stage.runs,
      steps: stage.steps,
      lastFinishedMs: Number(stage.last_finished_ms),
    })),
    memories,
  };
}

export function printBulkImport(label: string, report: BulkImportReport): void {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `\nbulk import, ${label}: ${report.turns} turns in ${report.sessions} sessions posted in ${seconds(report.postMs)}, digested ${seconds(report.digestMs)} after the last append (target ≤ 10 s); floor: the embedder alone on the same turns ${seconds(report.embedderFloorMs)}, digest / floor = ${(report.digestMs / report.embedderFloorMs).toFixed(1)}`,
  );
  for (const stage of report.stages)
    console.log(
      `  ${stage.function.padEnd(34)} ${String(stage.runs).padStart(4)} runs ${String(stage.steps).padStart(5)} steps, last finished ${seconds(stage.lastFinishedMs)} after the last append`,
    );
  console.log(`  memories: ${report.memories.map((row) => `${row.type} ${row.count} (${row.embedded} embedded)`).join(", ")}`);
}
