import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, createSession, message, startTestRuntime } from "../fixtures/runtime.js";

/**
 * Issue 50: `DELETE /v1/users/<a user who never existed>` rewrote every table an erasure touches
 * and `pg_statistic` (`VACUUM FULL`) and checkpointed, and any caller could repeat it. The scrub
 * now runs only after an erasure that deleted rows, and at most once per ERASURE_SCRUB_INTERVAL:
 * erasures within it share the next pass.
 */
// Long enough that four users are stored and erased within it on a loaded two-core machine.
const INTERVAL_MS = 15_000;
const SCRUBBED = "erased rows scrubbed from the database files";
const lines: { message?: string; time?: string }[] = [];
let runtime: Runtime;

beforeAll(async () => {
  vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    if (typeof line === "string" && line.startsWith("{")) lines.push(JSON.parse(line) as { message?: string });
  });
  runtime = await startTestRuntime({ LOG_LEVEL: "info", ERASURE_SCRUB_INTERVAL: `${INTERVAL_MS / 1000}s`, EXECUTOR_ENABLED: "false" });
});
afterAll(async () => {
  await runtime?.close();
  vi.restoreAllMocks();
});

const scrubs = () => lines.filter((line) => line.message === SCRUBBED);

async function userWithRows(userId: string): Promise<void> {
  const sessionId = await createSession(runtime.app, userId);
  const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I grow chillies.")] });
  expect(appended.status).toBe(201);
}

describe("the scrub after an erasure", () => {
  it("does not run for users who were never stored, however often they are erased", async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await call(runtime.app, "DELETE", `/v1/users/nobody-${i % 2}`);
      expect(answer.status).toBe(200);
      expect(Object.values(answer.body.erased).every((count) => count === 0)).toBe(true);
    }
    await runtime.background.settle();
    expect(scrubs()).toEqual([]);
  });

  it("runs after an erasure of rows, then at most once per interval: erasures within it share one pass", async () => {
    await userWithRows("first");
    const firstErased = Date.now();
    expect((await call(runtime.app, "DELETE", "/v1/users/first")).body.erased.sessions).toBe(1);
    await runtime.background.settle();
    expect(scrubs()).toHaveLength(1);

    // Three more erasures of stored users, and unknown ones, within the interval: one more pass, after it.
    for (const userId of ["second", "third", "fourth"]) await userWithRows(userId);
    for (const userId of ["second", "nobody", "third", "fourth"])
      expect((await call(runtime.app, "DELETE", `/v1/users/${userId}`)).status).toBe(200);
    await runtime.background.settle();
    expect(scrubs()).toHaveLength(2);
    // The second pass began no sooner than the interval after the first began (which was after its erasure).
    expect(Date.parse(scrubs()[1]?.time as string) - firstErased).toBeGreaterThanOrEqual(INTERVAL_MS);
    const passes = scrubs().map((line) => line as { rewritten?: string[] });
    expect(passes[1]?.rewritten).toContain("sessions");
  });
});
