import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import type { LanguageModel } from "../../src/providers/types.js";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { call, createSession, message, testEnv, waitForSettled } from "../fixtures/runtime.js";
import { findTraces } from "../fixtures/trace-scan.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * Step outputs hold users' words. With INNGEST_ENCRYPTION_KEY they leave the functions encrypted
 * (what Inngest Cloud stores), and the embedded executor stores that same ciphertext.
 */
const KEY_A = "first-encryption-key-0123456789abcdef";
const KEY_B = "second-encryption-key-0123456789abcdef";
let database: TestDatabase | undefined;
const opened: Runtime[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runtime) => runtime.close()));
  await database?.drop();
  database = undefined;
});

describe("end-to-end encrypted step data", () => {
  it("stores only ciphertext of step outputs, and a rotated key still finishes runs begun under the old one", async () => {
    database = await freshDatabase({ persistent: true });
    const marker = `zqenc${Math.random().toString(36).slice(2, 8)}`;
    let summarizing = false;
    const hanging: LanguageModel = {
      id: "hanging-model",
      summarize: () => {
        summarizing = true;
        return new Promise<never>(() => undefined);
      },
      extract: offlineLanguageModel.extract,
    };
    const first = await startRuntime(testEnv({ ...database.env, INNGEST_ENCRYPTION_KEY: KEY_A }), { providers: { llm: hanging } });
    const sessionId = await createSession(first.app, "cipher");
    await call(first.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", `My locker code is ${marker}.`)] });
    await waitUntil(() => summarizing, "the replay to load its backlog and start summarising");
    // The loaded backlog (the user's words) is memoized — as ciphertext.
    const steps = (await first.database.db.execute(sql`SELECT count(*)::int AS n FROM executor_steps`)) as unknown as {
      rows: { n: number }[];
    };
    expect(Number(steps.rows[0]?.n)).toBeGreaterThan(0);
    expect((await findTraces(first.database.db, [marker])).map((trace) => trace.column)).not.toContain("public.executor_steps.data");
    await first.executor?.stop({ waitForRuns: false });
    await first.database.close();

    // Rotation: the new key encrypts, the old one still decrypts the run begun under it.
    const second = await startRuntime(testEnv({ ...database.env, INNGEST_ENCRYPTION_KEY: KEY_B, INNGEST_ENCRYPTION_FALLBACK_KEYS: KEY_A }));
    opened.push(second);
    await waitForSettled(second.app, "cipher");
    const summaries = (await call(second.app, "GET", "/v1/memories?user_id=cipher&subtype=summary")).body.memories;
    expect(summaries.map((memory: { content: string }) => memory.content).join(" ")).toContain(marker);
    const traces = (await findTraces(second.database.db, [marker])).map((trace) => trace.column);
    expect(traces).not.toContain("public.executor_steps.data");
    expect(traces).not.toContain("public.executor_runs.output");
  });
});
