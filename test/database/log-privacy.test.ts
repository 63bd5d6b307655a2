import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { onPostgres } from "../fixtures/database.js";
import { keyed } from "../fixtures/keyed.js";
import { type Cluster, startCluster } from "../fixtures/postgres-cluster.js";
import { createSession, message, startTestRuntime, testEnv } from "../fixtures/runtime.js";

/**
 * Logs cannot be erased: they must never hold what users said. A run with the database failing
 * under traffic (restarted, or closed) at LOG_LEVEL=debug writes error lines about failed
 * statements — and none of the words the events carried.
 */
let runtime: Runtime | undefined;
let cluster: Cluster | undefined;
let lines: string[] = [];
beforeEach(() => {
  lines = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => {
    lines.push(String(line));
  });
});
afterEach(async () => {
  await runtime?.close().catch(() => undefined);
  runtime = undefined;
  await cluster?.stop();
  cluster = undefined;
  vi.restoreAllMocks();
});

/** Clients appending events whose words hold `marker`, until `until` settles; answers other than 201 are retried. */
async function markedTraffic(app: Runtime["app"], sessionId: string, marker: string, until: Promise<unknown>): Promise<number> {
  let settled = false;
  void until.finally(() => {
    settled = true;
  });
  let failures = 0;
  await Promise.all(
    Array.from({ length: 3 }, async (_, client) => {
      for (let index = 0; !settled || index < 5; index++) {
        const body = {
          events: [message("user", `my secret is ${marker} number ${client}-${index}`, { idempotency_key: `${client}:${index}` })],
        };
        const answer = await keyed(app, undefined, "POST", `/v1/sessions/${sessionId}/events`, body).catch(() => ({ status: 0 }));
        if (answer.status !== 201) failures++;
        if (settled && index >= 5) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  return failures;
}

describe("logs of a fault run", () => {
  it.runIf(onPostgres)("a Postgres restart mid-traffic: error lines name statements and codes, never the events' words", async () => {
    cluster = await startCluster();
    const started = await startRuntime(
      testEnv({
        DATABASE_URL: cluster.url,
        LOG_LEVEL: "debug",
        EXECUTOR_LEASE: "2s",
        SWEEP_CRON: "* * * * * *",
        SWEEP_MIN_AGE: "1s",
        DATABASE_CONNECT_TIMEOUT: "2s",
      }),
    );
    runtime = started;
    const marker = `marker-${randomBytes(6).toString("hex")}`;
    const sessionId = await createSession(started.app, "private");
    const restart = new Promise((resolve) => setTimeout(resolve, 300)).then(() => cluster?.restart());
    const failures = await markedTraffic(
      started.app,
      sessionId,
      marker,
      restart.then(() => new Promise((resolve) => setTimeout(resolve, 1500))),
    );
    expect(failures).toBeGreaterThan(0);
    expectNoMarker(marker);
  });

  it.skipIf(onPostgres)(
    "the embedded database closed mid-traffic: error lines name statements and codes, never the events' words",
    async () => {
      const started = await startTestRuntime({ LOG_LEVEL: "debug" });
      runtime = started;
      const marker = `marker-${randomBytes(6).toString("hex")}`;
      const sessionId = await createSession(started.app, "private");
      const closed = new Promise((resolve) => setTimeout(resolve, 300)).then(() => started.database.close());
      const failures = await markedTraffic(
        started.app,
        sessionId,
        marker,
        closed.then(() => new Promise((resolve) => setTimeout(resolve, 1000))),
      );
      expect(failures).toBeGreaterThan(0);
      expectNoMarker(marker);
    },
  );
});

function expectNoMarker(marker: string): void {
  const parsed = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { level: string; error?: unknown });
  // The fault was logged (so this is not a test of silence), with what failed.
  const errors = parsed.filter((line) => line.level === "error" || line.level === "warn");
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.some((line) => line.error !== undefined)).toBe(true);
  const leaking = lines.filter((line) => line.includes(marker));
  expect(leaking).toEqual([]);
}
