import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { UsageRecorder } from "../../src/usage/usage-recorder.js";
import type { UsageRecord } from "../../src/usage/usage-store.js";
import { freshDatabase, onPostgres } from "../fixtures/database.js";
import { call, createSession, startTestRuntime } from "../fixtures/runtime.js";

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

type Row = { user_id: string; stage: string; calls: number; input_tokens: number; output_tokens: number };
const usageRows = (runtime: Runtime) =>
  queryRows<Row>(
    runtime.database.db,
    sql`SELECT user_id, stage, calls, input_tokens, output_tokens FROM provider_usage WHERE app_id = 'batching' ORDER BY user_id, stage`,
  );

const call_ = (userId: string, inputTokens: number, day = "2026-03-01"): UsageRecord => ({
  appId: "batching",
  userId,
  day,
  provider: "offline",
  model: "use-lite-512",
  stage: "query",
  inputTokens,
  outputTokens: 0,
});

describe("query usage written in batches", () => {
  it("counts every one of many concurrent searches, from two processes on a server, as many calls as were made", async () => {
    const database = await freshDatabase();
    opened.push({ close: () => database.drop() });
    const first = await startTestRuntime(database.env);
    opened.unshift(first);
    // A second process on the same server adds to the same rows (PGlite is one process's database).
    const runtimes = [first];
    if (onPostgres) {
      const second = await startTestRuntime(database.env);
      opened.unshift(second);
      runtimes.push(second);
    }
    await createSession(first.app, "reader", { app_id: "batching" });
    const searches = 30;
    await Promise.all(
      runtimes.flatMap((runtime, process) =>
        Array.from({ length: searches }, async (_, i) => {
          const response = await call(runtime.app, "POST", "/v1/memories/search", {
            app_id: "batching",
            user_id: "reader",
            query: `what did I say about topic ${process}-${i}?`,
          });
          expect(response.status).toBe(200);
        }),
      ),
    );
    for (const runtime of runtimes) await runtime.background.settle();
    const rows = await usageRows(first);
    const queries = rows.filter((row) => row.stage === "query");
    expect(queries.map((row) => [row.user_id, Number(row.calls)])).toEqual([["reader", searches * runtimes.length]]);
    expect(Number(queries[0]?.input_tokens)).toBeGreaterThan(searches * runtimes.length * 5);
  });

  it("writes what arrives during a write as the next batch, an erased user's calls for the app, and goes on after a failed batch", async () => {
    const runtime = await startTestRuntime();
    opened.push(runtime);
    await createSession(runtime.app, "kept", { app_id: "batching" });
    const recorder = new UsageRecorder(runtime.database.db);

    const first = recorder.record([call_("kept", 3)]);
    expect(recorder.record([call_("kept", 4), call_("gone", 5)])).toBe(first);
    await Promise.resolve(); // the first batch is being written: what comes now waits for the next
    const second = recorder.record([call_("kept", 7)]);
    expect(second).not.toBe(first);
    expect(recorder.record([call_("gone", 8)])).toBe(second);
    expect(recorder.record([call_("", 9)])).toBe(second);
    await Promise.all([first, second]);

    // A batch whose write fails rejects its callers; the next one is written all the same.
    await expect(recorder.record([call_("kept", 6, "not a day")])).rejects.toThrow();
    await recorder.record([call_("kept", 10)]);
    // "gone" has no sessions (never had, or was erased): its calls count for the app, not for it.
    expect((await usageRows(runtime)).map((row) => [row.user_id, Number(row.calls), Number(row.input_tokens)])).toEqual([
      ["", 3, 5 + 8 + 9],
      ["kept", 4, 3 + 4 + 7 + 10],
    ]);
  });
});
