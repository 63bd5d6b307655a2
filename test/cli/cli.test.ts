import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";

/** Every `npx mnemo` command, run as a user would: a child process on one database. */
const execute = promisify(execFile);
let files: string;
let database: TestDatabase;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  files = await mkdtemp(join(tmpdir(), "memory-cli-"));
  database = await freshDatabase({ persistent: true });
  env = {
    ...process.env,
    ...database.env,
    LOG_LEVEL: "error",
    REPLAY_DEBOUNCE: "100ms",
    REFLECTION_DEBOUNCE: "100ms",
    SWEEP_MIN_AGE: "1h",
  };
});
afterAll(async () => {
  await rm(files, { recursive: true, force: true });
  await database.drop();
});

const memories = (records: { kind: string }[]) => records.filter((record) => record.kind === "memory") as { kind: string; type?: string }[];
const mnemo = async (...args: string[]) => execute("node", ["bin/mnemo.mjs", ...args], { env, timeout: 150_000 });
const failing = (...args: string[]) =>
  mnemo(...args).then(
    () => {
      throw new Error(`mnemo ${args.join(" ")} should have failed`);
    },
    (error: { code: number; stderr: string }) => error,
  );

async function startServer(): Promise<{ server: ChildProcess; port: string }> {
  // The system picks a free port (a random one in the ephemeral range could be a connection's own).
  const server = spawn("node", ["bin/mnemo.mjs", "start"], {
    env: { ...env, PORT: "0", LOG_LEVEL: "info" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${output}`)), 120_000);
    server.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on http:\/\/[^:/\s]+:(\d+)/.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1] as string);
      }
    });
    server.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${output}`));
    });
  });
  // The lock file names the URL right after "listening"; give the write a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { server, port };
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await exited;
}

describe("npx mnemo", () => {
  it("migrate", async () => {
    const migrated = (await mnemo("migrate")).stdout;
    expect(migrated).toContain(`migrations applied (${onPostgres ? "pg" : "pglite"})`);
    // On a real Postgres the configured model's vector index comes with the migrations.
    if (onPostgres) expect(migrated).toMatch(/vector index memories_ann_use_lite_512_512_\w+ ready/);
  });

  it("create-key and keys (list, revoke)", async () => {
    const created = (await mnemo("create-key", "--app", "cli-app", "--name", "laptop")).stdout;
    const [, id, key] = created.match(/created key (\S+) for app "cli-app"[\s\S]*\n(mk_\w+)/) ?? [];
    expect(key).toMatch(/^mk_[0-9a-f]{64}$/);
    expect((await mnemo("keys", "--app", "cli-app")).stdout).toContain(`${id}  cli-app  laptop  ${key?.slice(0, 10)}…`);
    expect((await mnemo("keys", "--revoke", id as string)).stdout).toContain(`revoked ${id}`);
    expect((await mnemo("keys")).stdout).toContain("revoked");
    expect((await failing("create-key")).stderr).toContain("required option '--app <app_id>'");
  });

  it("import (idempotent, with --wait), export, replay, backfill, decay", async () => {
    const file = join(files, "events.jsonl");
    await writeFile(
      file,
      [
        {
          session: "chat-1",
          user_id: "ivy",
          role: "user",
          content: "My name is Ivy and I live in Bergen.",
          occurred_at: "2025-04-02T18:30:00Z",
        },
        { session: "chat-1", user_id: "ivy", role: "assistant", content: "Nice to meet you, Ivy.", occurred_at: "2025-04-02T18:31:00Z" },
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

    const exported = (await mnemo("export", "--user", "ivy")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { kind: string; content?: string; user_id?: string; session_id?: string; seq?: number });
    // The API's shapes: snake_case fields.
    expect(exported.find((record) => record.kind === "session")?.user_id).toBe("ivy");
    const sessions = exported.filter((record) => record.kind === "session") as { started_at?: string; ended_at?: string | null }[];
    expect(sessions).toHaveLength(2);
    // Imported sessions start at their first event and are ended, so reflection derived facts.
    expect(sessions.map((session) => session.started_at)).toContain("2025-04-02T18:30:00.000Z");
    expect(sessions.every((session) => typeof session.ended_at === "string")).toBe(true);
    expect(memories(exported).some((record) => record.type === "semantic")).toBe(true);
    expect(exported.filter((record) => record.kind === "event").map((record) => record.content)).toContain(
      "I started learning the violin.",
    );
    expect(memories(exported).length).toBeGreaterThan(0);
    expect(exported.some((record) => record.kind === "history")).toBe(true);
    // The CLI reads a user id as every route does (trimmed, NFC): " ivy " is the same user.
    expect((await mnemo("export", "--user", " ivy ")).stdout).toBe((await mnemo("export", "--user", "ivy")).stdout);

    // Redact one event: its words leave the log and everything derived from it.
    const violin = exported.find((record) => record.kind === "event" && record.content === "I started learning the violin.");
    const redacted = JSON.parse((await mnemo("redact", "--session", String(violin?.session_id), "--seq", String(violin?.seq))).stdout);
    expect(redacted).toMatchObject({ seq: violin?.seq, redacted_now: true });
    expect((await mnemo("export", "--user", "ivy")).stdout).not.toMatch(/violin/i);

    // The diff derives again with the same providers in a shadow: nothing would change, nothing is applied.
    const diff = JSON.parse((await mnemo("replay", "--user", "ivy", "--diff")).stdout);
    expect(diff).toMatchObject({ dry_run: true, sessions: 2, counts: { added: 0, removed: 0, changed: 0 } });
    expect(diff.counts.unchanged).toBeGreaterThan(0);

    const replayed = (await mnemo("replay", "--user", "ivy")).stdout;
    expect(replayed).toMatch(/removed \d+ derived memories; replayed 2 sessions; rebuilt: \d+ current memories/);

    expect((await mnemo("backfill")).stdout).toMatch(/embedded \d+ memories with use-lite-512/);

    const dry = JSON.parse((await mnemo("decay", "--user", "ivy")).stdout) as { dry_run: boolean; recomputed: number };
    expect(dry).toMatchObject({ dry_run: true });
    expect(dry.recomputed).toBeGreaterThan(0);
    const applied = JSON.parse((await mnemo("decay", "--user", "ivy", "--apply")).stdout) as { dry_run: boolean; forgotten: unknown[] };
    expect(applied).toMatchObject({ dry_run: false, forgotten: [] });
    expect((await failing("decay", "--preset", "aggressive")).stderr).toContain("--preset");

    const bad = join(files, "bad.jsonl");
    await writeFile(bad, `${JSON.stringify({ session: "x", content: "no user" })}\n`);
    expect((await failing("import", bad, "--no-progress")).stderr).toContain("bad.jsonl:1: user_id");
  }, 600_000);

  it("facts audit: a dry run by default, --repair, --json", async () => {
    expect((await mnemo("facts", "audit", "nobody")).stdout).toContain("0 contradictions (dry run: nothing changed");
    expect(JSON.parse((await mnemo("facts", "audit", "nobody", "--repair", "--json")).stdout)).toEqual({
      user_id: "nobody",
      app_id: "default",
      dry_run: false,
      pairs: [],
      repaired: 0,
    });
    expect((await failing("facts", "audit")).stderr).toContain("user_id");
  });

  it("start serves the API until stopped", async () => {
    const { server, port } = await startServer();
    try {
      const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { status: string };
      expect(health.status).toBe("ok");
    } finally {
      await stopServer(server);
    }
  });

  it.skipIf(onPostgres)(
    "while a server holds the embedded database: data commands go to it over HTTP, the rest refuse, a second server refuses",
    async () => {
      const { server, port } = await startServer();
      try {
        const file = join(files, "live.jsonl");
        await writeFile(
          file,
          `${JSON.stringify({ session: "live-1", user_id: "lena", role: "user", content: "I keep bees on my balcony." })}\n`,
        );
        const imported = await mnemo("import", file, "--no-progress");
        expect(imported.stderr).toContain(`using the server at http://127.0.0.1:${port}`);
        expect(imported.stdout).toContain("imported 1 events (1 new) into 1 sessions");
        // The server saw the import itself: nothing was written behind its back.
        const listed = (await (await fetch(`http://127.0.0.1:${port}/v1/sessions?user_id=lena`)).json()) as { sessions: unknown[] };
        expect(listed.sessions).toHaveLength(1);
        const exported = (await mnemo("export", "--user", "lena")).stdout;
        expect(exported).toContain("I keep bees on my balcony.");

        // Keys go through the server's /v1/keys: minted and revoked without a restart.
        const minted = await mnemo("create-key", "--app", "other");
        expect(minted.stderr).toContain(`using the server at http://127.0.0.1:${port}`);
        const [, mintedId] = minted.stdout.match(/created key (\S+) for app "other"/) ?? [];
        expect((await mnemo("keys", "--app", "other")).stdout).toContain(`${mintedId}  other  default  mk_`);
        expect((await mnemo("keys", "--revoke", mintedId as string)).stdout).toContain(`revoked ${mintedId}`);

        const refused = await failing("migrate");
        expect(refused.stderr).toMatch(new RegExp(`DATA_DIR .* is in use by process ${server.pid}`));
        expect(refused.stderr).not.toContain("    at ");
        const second = await startServer().then(
          async (started) => {
            await stopServer(started.server);
            throw new Error("a second server started on the same DATA_DIR");
          },
          (error: Error) => error,
        );
        expect(second.message).toContain("is in use by process");
      } finally {
        await stopServer(server);
      }
      // Stopped: the lock is gone and the files are this process's again.
      expect((await mnemo("keys")).stdout).toBeDefined();
      const after = (await mnemo("export", "--user", "lena")).stdout;
      expect(after).toContain("I keep bees on my balcony.");
    },
  );

  it.skipIf(onPostgres)("takes over the lock of a process that is gone", async () => {
    // A pid that cannot be alive: the lock of a crashed server.
    await writeFile(
      join(database.env["DATA_DIR"] as string, "mnemo.lock"),
      JSON.stringify({ pid: 2 ** 22 + 7, hostname: hostname(), started_at: new Date(0).toISOString(), url: "http://127.0.0.1:9" }),
    );
    expect((await mnemo("keys")).stdout).toBeDefined();
  });

  it("eval and bench hand over to the evaluation and the benchmarks", async () => {
    // The full runs take minutes; CI runs the benchmark itself. Here: the commands are wired.
    expect((await mnemo("help", "eval")).stdout).toContain("LoCoMo evidence recall");
    expect((await mnemo("help", "bench")).stdout).toContain("--scale");
    expect((await failing("eval", "/nonexistent-dir")).stderr).toMatch(/nonexistent-dir|ENOENT|no such/);
  });
});
