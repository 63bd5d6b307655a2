import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Every `npx mnemo` command, run as a user would: a child process on one data directory. */
const execute = promisify(execFile);
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "memory-cli-"));
  env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "error", REPLAY_DEBOUNCE: "100ms", REFLECTION_DEBOUNCE: "100ms", SWEEP_MIN_AGE: "1h" };
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const mnemo = async (...args: string[]) => execute("node", ["bin/mnemo.mjs", ...args], { env, timeout: 90_000 });
const failing = (...args: string[]) => mnemo(...args).then(
  () => {
    throw new Error(`mnemo ${args.join(" ")} should have failed`);
  },
  (error: { code: number; stderr: string }) => error,
);

describe("npx mnemo", () => {
  it("migrate", async () => {
    expect((await mnemo("migrate")).stdout).toContain("migrations applied (pglite)");
  });

  it("create-key and keys (list, revoke)", async () => {
    const created = (await mnemo("create-key", "--app", "cli-app", "--name", "laptop")).stdout;
    const [, id, key] = created.match(/created key (\S+) for app "cli-app"[\s\S]*\n(mk_\w+)/) ?? [];
    expect(key).toMatch(/^mk_[0-9a-f]{64}$/);
    expect((await mnemo("keys", "--app", "cli-app")).stdout).toContain(`${id}  cli-app  laptop  ${key?.slice(0, 10)}…`);
    expect((await mnemo("keys", "--revoke", id as string)).stdout).toContain(`revoked ${id}`);
    expect((await mnemo("keys")).stdout).toContain("revoked");
    expect((await failing("create-key")).stderr).toContain("required option '--app <app_id>'");
  }, 60_000);

  it("import (idempotent, with --wait), export, replay, backfill, decay", async () => {
    const file = join(dataDir, "events.jsonl");
    await writeFile(
      file,
      [
        { session: "chat-1", user_id: "ivy", role: "user", content: "My name is Ivy and I live in Bergen." },
        { session: "chat-1", user_id: "ivy", role: "assistant", content: "Nice to meet you, Ivy." },
        { session: "chat-2", user_id: "ivy", role: "user", content: "I started learning the violin." },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    const imported = await mnemo("import", file, "--wait", "--no-progress");
    expect(imported.stdout).toContain("imported 3 events (3 new) into 2 sessions");
    expect(imported.stdout).toContain("pipeline settled");
    // Re-importing stores nothing twice (idempotency keys from the line numbers).
    expect((await mnemo("import", file, "--no-progress")).stdout).toContain("imported 3 events (0 new)");

    const exported = (await mnemo("export", "--user", "ivy")).stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; content?: string });
    expect(exported.filter((record) => record.kind === "session")).toHaveLength(2);
    expect(exported.filter((record) => record.kind === "event").map((record) => record.content)).toContain("I started learning the violin.");
    const memories = exported.filter((record) => record.kind === "memory");
    expect(memories.length).toBeGreaterThan(0);
    expect(exported.some((record) => record.kind === "history")).toBe(true);

    const replayed = (await mnemo("replay", "--user", "ivy")).stdout;
    expect(replayed).toMatch(/removed \d+ derived memories; replayed 2 sessions; rebuilt: \d+ current memories/);

    expect((await mnemo("backfill")).stdout).toMatch(/embedded \d+ memories with use-lite-512/);

    const dry = JSON.parse((await mnemo("decay", "--user", "ivy")).stdout) as { dry_run: boolean; recomputed: number };
    expect(dry).toMatchObject({ dry_run: true });
    expect(dry.recomputed).toBeGreaterThan(0);
    const applied = JSON.parse((await mnemo("decay", "--user", "ivy", "--apply")).stdout) as { dry_run: boolean; forgotten: number };
    expect(applied).toMatchObject({ dry_run: false, forgotten: 0 });
    expect((await failing("decay", "--preset", "aggressive")).stderr).toContain("--preset");

    const bad = join(dataDir, "bad.jsonl");
    await writeFile(bad, `${JSON.stringify({ session: "x", content: "no user" })}\n`);
    expect((await failing("import", bad, "--no-progress")).stderr).toContain("bad.jsonl:1: user_id");
  }, 120_000);

  it("start serves the API until stopped", async () => {
    const port = String(40_000 + Math.floor(Math.random() * 10_000));
    const server = spawn("node", ["bin/mnemo.mjs", "start"], { env: { ...env, PORT: port }, stdio: ["ignore", "ignore", "pipe"] });
    try {
      let output = "";
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`did not start: ${output}`)), 60_000);
        server.stderr?.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("listening on")) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { status: string };
      expect(health.status).toBe("ok");
    } finally {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
    }
  }, 90_000);

  it("eval and bench hand over to the evaluation and the benchmarks", async () => {
    // The full runs take minutes; CI runs the benchmark itself. Here: the commands are wired.
    expect((await mnemo("help", "eval")).stdout).toContain("LoCoMo evidence recall");
    expect((await mnemo("help", "bench")).stdout).toContain("--scale");
    expect((await failing("eval", "/nonexistent-dir")).stderr).toMatch(/nonexistent-dir|ENOENT|no such/);
  });
});
