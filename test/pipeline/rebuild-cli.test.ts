import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startRuntime } from "../../functions/node-runtime.js";
import { call, createSession, message, testEnv, waitForSettled } from "../fixtures/runtime.js";

const run = promisify(execFile);
let dataDir: string | undefined;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("npm run rebuild", () => {
  it("derives a user's memory again from the log", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "memory-rebuild-"));
    const runtime = await startRuntime(testEnv({ DATA_DIR: dataDir }));
    const sessionId = await createSession(runtime.app, "cli-user");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I love tea. My name is Uma.")] });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "cli-user");
    const before = (await call(runtime.app, "GET", "/v1/memories?user_id=cli-user")).body.memories.length;
    await runtime.close();

    const { stdout } = await run("npx", ["tsx", "scripts/rebuild.ts", "--user", "cli-user"], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "error", REPLAY_DEBOUNCE: "100ms", REFLECTION_DEBOUNCE: "100ms" },
      timeout: 60_000,
    });
    expect(stdout).toContain(`removed ${before} derived memories; replaying 1 sessions`);
    expect(stdout).toContain(`rebuilt: ${before} current memories`);
  }, 90_000);

  it("explains its usage when the user is missing", async () => {
    const failure = await run("npx", ["tsx", "scripts/rebuild.ts"], { env: { ...process.env, DATA_DIR: "memory://" } }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining("usage: npm run rebuild -- --user") });
  });
});
