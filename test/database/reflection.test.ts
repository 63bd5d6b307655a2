import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { consolidateChunk } from "../../src/pipeline/derive/reflection-chunk.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

/** One ended session of `userId` with the user's sentences said at `at`. */
async function sessionSaying(userId: string, at: string, ...sentences: string[]): Promise<{ sessionId: string; eventIds: string[] }> {
  const sessionId = await createSession(runtime.app, userId, { started_at: at });
  const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: sentences.map((text, i) => message("user", text, { occurred_at: new Date(Date.parse(at) + i * 1000).toISOString() })),
  });
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  return { sessionId, eventIds: appended.body.events.map((event: { id: string }) => event.id) };
}

const memoriesOf = async (userId: string, query = "") =>
  (await call(runtime.app, "GET", `/v1/memories?user_id=${userId}&limit=200${query}`)).body.memories as any[];

describe("deep reflection", () => {
  it("extracts facts with their source events when a session ends", async () => {
    const { eventIds } = await sessionSaying(
      "fay",
      "2024-03-01T09:00:00Z",
      "My name is Fay and I live in Oslo.",
      "Please always answer in Norwegian.",
    );
    await waitForSettled(runtime.app, "fay");
    const facts = await memoriesOf("fay", "&type=semantic");
    expect(facts.map((fact) => [fact.key, fact.content]).sort()).toEqual([
      ["profile:location", "User lives in Oslo."],
      ["profile:name", "User's name is Fay."],
      ["rule:answer_in_norwegian", "User's rule: always answer in Norwegian."],
    ]);
    const location = facts.find((fact) => fact.key === "profile:location");
    expect(location.valid_at).toBe("2024-03-01T09:00:00.000Z");
    expect((await call(runtime.app, "GET", `/v1/memories/${location.id}`)).body.sources).toEqual([
      { session_id: expect.any(String), event_id: eventIds[0], seq: 1 },
    ]);
    const jobs = (await call(runtime.app, "GET", "/v1/pipeline/jobs?user_id=fay")).body.jobs;
    expect(jobs.find((job: { job_type: string }) => job.job_type === "deep_reflection")).toMatchObject({
      status: "completed",
      from_seq: 1,
      to_seq: 2,
    });
  });

  it("supersedes a contradicted fact, keeps it in history and as-of queries, and records the change of attitude", async () => {
    await sessionSaying("gus", "2024-01-10T10:00:00Z", "I love geckos.");
    await waitForSettled(runtime.app, "gus");
    const later = await sessionSaying("gus", "2024-02-10T10:00:00Z", "I hate geckos.");
    await waitForSettled(runtime.app, "gus");

    const current = await memoriesOf("gus", "&type=semantic&key=attitude:gecko");
    expect(current.map((fact) => fact.content)).toEqual(["User hates geckos."]);
    const all = await memoriesOf("gus", "&type=semantic&key=attitude:gecko&include_expired=true");
    const loved = all.find((fact) => fact.content === "User loves geckos.");
    expect(loved).toMatchObject({ invalid_at: "2024-02-10T10:00:00.000Z", superseded_by: current[0].id, version: 1 });
    expect(loved.expired_at).not.toBeNull();
    expect(current[0].version).toBe(2);

    const history = (await call(runtime.app, "GET", `/v1/memories/${loved.id}/history`)).body.history;
    expect(history.map((entry: { operation: string; actor: string }) => [entry.operation, entry.actor])).toEqual([
      ["ADD", "deep-reflection"],
      ["SUPERSEDE", "deep-reflection"],
    ]);
    const asOf = await memoriesOf("gus", "&type=semantic&key=attitude:gecko&as_of=2024-01-20T00:00:00Z");
    expect(asOf.map((fact) => fact.content)).toEqual(["User loves geckos."]);

    const reflections = await memoriesOf("gus", "&type=insight");
    expect(reflections.map((insight) => insight.content)).toEqual([
      'User\'s attitude towards geckos changed from "loves" (2024-01-10) to "hates" (2024-02-10).',
    ]);

    // A later session's context window holds the current fact, not the superseded one.
    const third = await createSession(runtime.app, "gus");
    const context = await call(runtime.app, "POST", "/v1/context", {
      user_id: "gus",
      session_id: third,
      query: "Does the user like geckos?",
      max_tokens: 1000,
    });
    expect(context.body.prompt).toContain("User hates geckos.");
    expect(context.body.prompt).not.toContain("User loves geckos.");
    expect(later.sessionId).toBeTruthy();
  });

  it("lets the later statement win when two reflections of one user run at once", async () => {
    const sessions = await Promise.all([
      sessionSaying("hal", "2024-05-02T10:00:00Z", "I hate dogs."),
      sessionSaying("hal", "2024-05-01T10:00:00Z", "I love dogs.", "I live in Rome."),
    ]);
    expect(sessions).toHaveLength(2);
    await waitForSettled(runtime.app, "hal");
    const versions = await memoriesOf("hal", "&type=semantic&key=attitude:dog&include_expired=true");
    expect(versions).toHaveLength(2);
    expect((await memoriesOf("hal", "&type=semantic&key=attitude:dog")).map((fact) => fact.content)).toEqual(["User hates dogs."]);
    expect(versions.find((fact) => fact.content === "User loves dogs.").invalid_at).toBe("2024-05-02T10:00:00.000Z");
    expect(await memoriesOf("hal", "&key=profile:location")).toHaveLength(1);
  });

  it("lets the later statement win even when it is reflected first", async () => {
    await sessionSaying("ida", "2024-07-02T10:00:00Z", "I hate olives.");
    await waitForSettled(runtime.app, "ida");
    await sessionSaying("ida", "2024-07-01T10:00:00Z", "I love olives.");
    await waitForSettled(runtime.app, "ida");
    expect((await memoriesOf("ida", "&type=semantic&key=attitude:olive")).map((fact) => fact.content)).toEqual(["User hates olives."]);
    const loved = (await memoriesOf("ida", "&type=semantic&key=attitude:olive&include_expired=true")).find(
      (fact) => fact.content === "User loves olives.",
    );
    expect(loved).toMatchObject({ valid_at: "2024-07-01T10:00:00.000Z", invalid_at: "2024-07-02T10:00:00.000Z" });
  });

  it("keeps one memory for a fact said twice, with the sources of both statements", async () => {
    await sessionSaying("jo", "2024-04-01T10:00:00Z", "I'm allergic to sesame.");
    await waitForSettled(runtime.app, "jo");
    await sessionSaying("jo", "2024-04-08T10:00:00Z", "Remember that I am allergic to sesame.");
    await waitForSettled(runtime.app, "jo");
    const facts = await memoriesOf("jo", "&type=semantic&include_expired=true");
    expect(facts).toHaveLength(1);
    const detail = (await call(runtime.app, "GET", `/v1/memories/${facts[0].id}`)).body;
    expect(detail.sources).toHaveLength(2);
    expect(detail.valid_at).toBe("2024-04-01T10:00:00.000Z");
  });

  it("retracts a fact the user takes back", async () => {
    await sessionSaying("kim", "2024-06-01T10:00:00Z", "I live in Leipzig.");
    await waitForSettled(runtime.app, "kim");
    await sessionSaying("kim", "2024-09-01T10:00:00Z", "I no longer live in Leipzig.");
    await waitForSettled(runtime.app, "kim");
    expect(await memoriesOf("kim", "&key=profile:location")).toEqual([]);
    const history = (
      await call(
        runtime.app,
        "GET",
        `/v1/memories/${(await memoriesOf("kim", "&key=profile:location&include_expired=true"))[0].id}/history`,
      )
    ).body.history;
    expect(history.map((entry: { operation: string }) => entry.operation)).toEqual(["ADD", "DELETE"]);
    expect((await memoriesOf("kim", "&key=profile:location&as_of=2024-07-01T00:00:00Z"))[0].content).toBe("User lives in Leipzig.");
  });

  it("promotes a habit from trend to emerging as evidence accumulates", async () => {
    await sessionSaying("lou", "2024-08-01T08:00:00Z", "I usually cycle to work.");
    await waitForSettled(runtime.app, "lou");
    let [trait] = await memoriesOf("lou", "&type=trait");
    expect(trait.trait).toMatchObject({ stage: "trend", reinforcement_count: 1 });
    await sessionSaying("lou", "2024-08-05T08:00:00Z", "I always cycle to work, even in the rain.");
    await waitForSettled(runtime.app, "lou");
    [trait] = await memoriesOf("lou", "&type=trait");
    expect(trait.trait).toMatchObject({ stage: "emerging", reinforcement_count: 2 });
    const history = (await call(runtime.app, "GET", `/v1/memories/${trait.id}/history`)).body.history;
    expect(history.map((entry: { operation: string }) => entry.operation)).toEqual(["ADD", "UPDATE", "STAGE_CHANGE"]);
    const evidence = await queryRows<{ quality: string }>(
      runtime.database.db,
      sql`SELECT quality FROM trait_evidence WHERE trait_id = ${trait.id} ORDER BY observed_at`,
    );
    expect(evidence.map((row) => row.quality)).toEqual(["B", "A"]);
  });

  it("never applies a reflected range twice when a committed step is run again after a crash", async () => {
    const { sessionId } = await sessionSaying("nat", "2024-10-01T10:00:00Z", "I love chess.");
    await waitForSettled(runtime.app, "nat");
    const events = await queryRows<{ id: string; seq: number; content: string; occurred_at: Date }>(
      runtime.database.db,
      sql`SELECT id, seq, content, occurred_at FROM session_events WHERE session_id = ${sessionId}`,
    );
    const extraction = await runtime.providers.llm.extract({
      turns: events.map((event) => ({ role: "user", content: event.content, seq: event.seq })),
    });
    // The same consolidate step, replayed as if its result had not been memoized before a crash.
    const again = await consolidateChunk(
      { db: runtime.database.db, embedder: runtime.providers.embedder },
      {
        session: { id: sessionId, appId: "default", userId: "nat", endedAt: null },
        fromSeq: 0,
        toSeq: 1,
        more: false,
        jobId: randomUUID(),
        events: events.map((event) => ({ ...event, role: "user", occurredAt: new Date(event.occurred_at).toISOString() })),
      },
      extraction,
      { now: new Date() },
    );
    expect(again).toEqual({ applied: false, reason: "watermark_moved" });
    expect(await memoriesOf("nat", "&type=semantic&include_expired=true")).toHaveLength(1);
    const sources = await queryRows<{ n: number }>(
      runtime.database.db,
      sql`SELECT count(*)::int AS n FROM memory_sources s JOIN memories m ON m.id = s.memory_id WHERE m.user_id = 'nat' AND m.type = 'semantic'`,
    );
    expect(sources[0]?.n).toBe(1);
  });

  it("rebuilds a user's memory from the log with the same result as the incremental pipeline", async () => {
    await sessionSaying("max", "2024-01-01T10:00:00Z", "I love jazz.", "My name is Max.", "I usually run in the morning.");
    await waitForSettled(runtime.app, "max");
    await sessionSaying("max", "2024-02-01T10:00:00Z", "I hate jazz now.", "I moved to Vienna.", "I usually run in the morning.");
    await waitForSettled(runtime.app, "max");
    const api = await call(runtime.app, "POST", "/v1/memories", { user_id: "max", type: "insight", content: "Max prefers short answers." });
    expect(api.status).toBe(201);

    const shape = (rows: any[]) =>
      rows
        .map((row) =>
          JSON.stringify([
            row.type,
            row.subtype,
            row.key,
            row.content,
            row.valid_at,
            row.invalid_at,
            row.expired_at === null,
            row.trait?.stage ?? null,
          ]),
        )
        .sort();
    const before = shape(await memoriesOf("max", "&include_expired=true"));
    const rebuild = await call(runtime.app, "POST", "/v1/users/max/rebuild", {});
    expect(rebuild.status).toBe(202);
    expect(rebuild.body).toMatchObject({ sessions: 2 });
    expect(rebuild.body.deleted_memories).toBeGreaterThan(5);
    await waitForSettled(runtime.app, "max");
    expect(shape(await memoriesOf("max", "&include_expired=true"))).toEqual(before);
  });
});
