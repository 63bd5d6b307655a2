import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * Issue 50: `mnemo export` wrote a format `mnemo import` did not read (a hand-written conversion
 * was needed), and the import's error came with a stack trace. Now what one store exports, another
 * imports: the log as it was, the memories added through the API, and the pipeline derives the
 * rest again; a file it cannot import is refused in one line naming the line and what is wrong.
 */
const execute = promisify(execFile);
let files: string;
let source: TestDatabase;
let target: TestDatabase;

beforeAll(async () => {
  files = await mkdtemp(join(tmpdir(), "mnemo-export-import-"));
  source = await freshDatabase({ persistent: true });
  target = await freshDatabase({ persistent: true });
});
afterAll(async () => {
  await rm(files, { recursive: true, force: true });
  await source?.drop();
  await target?.drop();
});

const settings = { LOG_LEVEL: "error", REPLAY_DEBOUNCE: "100ms", REFLECTION_DEBOUNCE: "100ms", SWEEP_MIN_AGE: "1h", MNEMO_URL: "" };
const mnemo = (database: TestDatabase, ...args: string[]) =>
  execute("node", ["bin/mnemo.mjs", ...args], { env: { ...process.env, ...database.env, ...settings }, timeout: 240_000 });
const refused = (database: TestDatabase, ...args: string[]) =>
  mnemo(database, ...args).then(
    () => {
      throw new Error(`mnemo ${args.join(" ")} should have failed`);
    },
    (error: { code: number; stderr: string }) => error,
  );

type Record_ = { kind: string } & Record<string, unknown>;
const records = (jsonl: string): Record_[] =>
  jsonl
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record_);
const ofKind = (all: Record_[], kind: string) => all.filter((record) => record.kind === kind);

/** What must survive a round trip, without the ids and times the importing store gives anew. */
function comparable(all: Record_[]) {
  const sessions = ofKind(all, "session");
  const sessionIndex = new Map(sessions.map((session, index) => [session["id"], index]));
  const events = ofKind(all, "event");
  const eventsById = new Map(events.map((event) => [event["id"], event]));
  const memories = ofKind(all, "memory");
  return {
    sessions: sessions.map((session) => {
      const { imported_session: _, ...metadata } = session["metadata"] as Record<string, unknown>;
      return { agent_id: session["agent_id"], metadata, started_at: session["started_at"], ended: session["ended_at"] !== null };
    }),
    events: events.map((event) => ({
      session: sessionIndex.get(event["session_id"]),
      seq: event["seq"],
      type: event["type"],
      role: event["role"],
      content: event["content"],
      data: event["data"],
      idempotency_key: event["idempotency_key"],
      occurred_at: event["occurred_at"],
    })),
    added: memories
      .filter((memory) => (memory["metadata"] as { origin?: string } | null)?.origin === "api")
      .map((memory) => ({
        type: memory["type"],
        key: memory["key"],
        content: memory["content"],
        sources: (memory["sources"] as { event_id: string }[]).map((source) => eventsById.get(source.event_id)?.["content"]),
      })),
    facts: memories
      .filter((memory) => memory["type"] === "semantic" && memory["expired_at"] === null)
      .map((memory) => `${memory["key"]} | ${memory["content"]}`)
      .sort(),
  };
}

describe("mnemo export, then mnemo import", () => {
  let exported: string;

  beforeAll(async () => {
    // The exporting store: two sessions (one ended, one open with an agent and metadata), events
    // with data and idempotency keys, a fact and an insight added through the API.
    const runtime = await startTestRuntime(source.env);
    try {
      const ended = await createSession(runtime.app, "rui");
      const appended = await call(runtime.app, "POST", `/v1/sessions/${ended}/events`, {
        events: [
          { ...message("user", "I moved to Braga for a job at a bakery."), occurred_at: "2025-03-01T09:00:00Z" },
          { ...message("assistant", "Good luck with the new job!"), data: { model: "scripted" }, occurred_at: "2025-03-01T09:00:05Z" },
          { ...message("user", "Please remember that my brother Tiago visits in May."), idempotency_key: "turn-3" },
        ],
      });
      expect(appended.status).toBe(201);
      await call(runtime.app, "POST", `/v1/sessions/${ended}/end`);
      const open = await call(runtime.app, "POST", "/v1/sessions", { user_id: "rui", agent_id: "helper", metadata: { channel: "sms" } });
      await call(runtime.app, "POST", `/v1/sessions/${open.body.id}/events`, { events: [message("user", "I bake rye bread on Sundays.")] });
      // The API's memories once reflection is done: written while it runs, an insight may be merged
      // with a derived one (consolidation), and which one stays current is the race's, not the test's.
      await waitForSettled(runtime.app, "rui");
      const added = await call(runtime.app, "POST", "/v1/memories", {
        user_id: "rui",
        type: "insight",
        content: "Rui is up before dawn for work.",
        source_event_ids: [appended.body.events[0].id],
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const fact = await call(runtime.app, "POST", "/v1/memories", {
        user_id: "rui",
        type: "semantic",
        subtype: "preference",
        key: "preference:coffee",
        value: "black",
        content: "Rui takes his coffee black.",
      });
      expect(fact.status, JSON.stringify(fact.body)).toBe(201);
      await waitForSettled(runtime.app, "rui");
    } finally {
      await runtime.close();
    }
    exported = join(files, "rui.jsonl");
    await writeFile(exported, (await mnemo(source, "export", "--user", "rui")).stdout);
  }, 600_000);

  it("imports what export wrote into another store: the log as it was, the memories added through the API, the rest derived again", async () => {
    const imported = await mnemo(target, "import", exported, "--wait", "--no-progress");
    expect(imported.stdout).toMatch(
      /^imported 4 events \(4 new\) into 2 sessions; 2 memories added through the API again, \d+ derived records left to the pipeline$/m,
    );
    expect(imported.stdout).toContain("pipeline settled");

    const before = comparable(records(await readFile(exported, "utf8")));
    const after = comparable(records((await mnemo(target, "export", "--user", "rui")).stdout));
    expect(after.sessions).toEqual(before.sessions);
    expect(after.events).toEqual(before.events);
    expect(after.added).toEqual(before.added);
    expect(before.added.find((memory) => memory.type === "insight")?.sources).toEqual(["I moved to Braga for a job at a bakery."]);
    // Derived again from the same log by the same providers: the same facts.
    expect(after.facts).toEqual(before.facts);
    expect(after.facts.length).toBeGreaterThan(2);

    // Again: nothing is stored twice.
    const again = await mnemo(target, "import", exported, "--no-progress");
    expect(again.stdout).toMatch(/^imported 4 events \(0 new\) into 2 sessions/m);
    expect(ofKind(records((await mnemo(target, "export", "--user", "rui")).stdout), "session")).toHaveLength(2);
  }, 600_000);

  it("refuses a file it cannot import in one line naming the line and what is wrong, without a stack", async () => {
    const lines = (await readFile(exported, "utf8")).trim().split("\n");
    const cases: [string, string[], RegExp][] = [
      ["torn.jsonl", [lines[0] as string, (lines[1] as string).slice(0, 20)], /^torn\.jsonl:2: not JSON \(.+\)$/],
      [
        "orphan.jsonl",
        [
          lines[0] as string,
          JSON.stringify({
            ...JSON.parse(lines.find((line) => line.includes('"kind":"event"')) as string),
            session_id: "00000000-0000-4000-8000-00000000abcd",
          }),
        ],
        /^orphan\.jsonl:2: an event of session 00000000-0000-4000-8000-00000000abcd, whose session record is not above it$/,
      ],
      [
        "mixed.jsonl",
        [lines[0] as string, JSON.stringify({ session: "a", user_id: "u", role: "user", content: "hi" })],
        /^mixed\.jsonl:2: not an export record \(line 1 is one\): kind: /,
      ],
      ["no-user.jsonl", [JSON.stringify({ session: "a", role: "user", content: "hi" })], /^no-user\.jsonl:1: user_id: /],
      ["bad-role.jsonl", [JSON.stringify({ session: "a", user_id: "u", role: "narrator", content: "hi" })], /^bad-role\.jsonl:1: role: /],
    ];
    for (const [name, content, line] of cases) {
      await writeFile(join(files, name), `${content.join("\n")}\n`);
      const failure = await refused(target, "import", join(files, name), "--no-progress");
      expect(failure.code, name).toBe(1);
      const written = failure.stderr.trim().split("\n");
      expect(written, name).toHaveLength(1);
      expect((written[0] as string).replace(`${files}/`, ""), name).toMatch(line);
    }
    const missing = await refused(target, "import", join(files, "absent.jsonl"), "--no-progress");
    expect(missing.stderr.trim()).toBe(`cannot read ${join(files, "absent.jsonl")}: no such file (ENOENT)`);
    // A line the service refuses is named with its line and the field.
    await writeFile(
      join(files, "too-long.jsonl"),
      `${JSON.stringify({ session: "a", user_id: "u", role: "user", content: "x".repeat(100_001) })}\n`,
    );
    const tooLong = (await refused(target, "import", join(files, "too-long.jsonl"), "--no-progress")).stderr.trim().split("\n");
    expect(tooLong).toHaveLength(1);
    expect(tooLong[0]).toMatch(
      /too-long\.jsonl:1: POST \/v1\/sessions\/[0-9a-f-]+\/events: 400 invalid_request: .*body\.events\.0\.content/,
    );
  }, 600_000);
});
