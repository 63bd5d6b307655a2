import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import { type Summary, summarize, time } from "./stats.js";

const json = { "content-type": "application/json" };

/**
 * Append latency through the HTTP app (validation, idempotency, the single append statement, the
 * deferred emit to the pipeline) next to the floor: a raw single-row INSERT on the same database
 * connection, measured in alternating rounds so machine noise hits both alike.
 */
export async function benchAppend(runtime: Runtime, iterations: number): Promise<{ raw: Summary; rows: Summary[] }> {
  const { db } = runtime.database;
  await db.execute(
    sql`CREATE TABLE IF NOT EXISTS bench_raw_insert (id uuid PRIMARY KEY, session_id uuid NOT NULL, seq int NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  );
  const created = await runtime.app.request("/v1/sessions", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ user_id: "bench-user" }),
  });
  const sessionId = ((await created.json()) as { id: string }).id;
  const content = "I moved to Lisbon last spring and I cycle along the river every morning before work.";

  const raw: number[] = [];
  const append: number[] = [];
  const appendKeyed: number[] = [];
  const readYourWrites: number[] = [];
  const rawInsert = (seq: number) =>
    db.execute(sql`INSERT INTO bench_raw_insert (id, session_id, seq, content) VALUES (${randomUUID()}, ${sessionId}, ${seq}, ${content})`);
  const appendOne = (body: Record<string, unknown>) =>
    Promise.resolve(
      runtime.app.request(`/v1/sessions/${sessionId}/events`, { method: "POST", headers: json, body: JSON.stringify({ events: [body] }) }),
    ).then(async (response) => {
      if (response.status !== 201) throw new Error(`append failed: ${response.status} ${await response.text()}`);
      return (await response.json()) as { last_seq: number };
    });

  for (let warmup = 0; warmup < 50; warmup++) {
    await rawInsert(-warmup);
    await appendOne({ type: "message", role: "user", content });
  }
  for (let i = 0; i < iterations; i++) {
    raw.push(await time(() => rawInsert(i)));
    append.push(await time(() => appendOne({ type: "message", role: "user", content })));
    appendKeyed.push(await time(() => appendOne({ type: "message", role: "user", content, idempotency_key: `k-${i}` })));
    readYourWrites.push(
      await time(async () => {
        const { last_seq } = await appendOne({ type: "message", role: "user", content });
        const read = await runtime.app.request(`/v1/sessions/${sessionId}/events?after_seq=${last_seq - 1}`);
        const body = (await read.json()) as { events: { seq: number }[] };
        if (body.events[0]?.seq !== last_seq) throw new Error("read-your-writes violated");
      }),
    );
  }
  await runtime.background.settle();
  return {
    raw: summarize("raw single-row INSERT (floor)", raw),
    rows: [
      summarize("append 1 event via HTTP app", append),
      summarize("append 1 event with idempotency key", appendKeyed),
      summarize("append then read it back (read-your-writes)", readYourWrites),
    ],
  };
}
