import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { consolidate } from "../../src/memory/write/consolidate.js";
import { groundExtraction } from "../../src/memory/write/extraction-grounding.js";
import { writeChunkEpisodes } from "../../src/pipeline/derive/replay-chunk.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import type { LanguageModel } from "../../src/providers/types.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { findTraces } from "../fixtures/trace-scan.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * A model that holds every call while `held` is set, so a test can redact an event while replay
 * and reflection are in flight with its words already read.
 */
const held = { gate: null as Promise<void> | null, calls: 0 };
const slowModel: LanguageModel = {
  id: offlineLanguageModel.id,
  summarize: async (request) => {
    held.calls += 1;
    await held.gate;
    return offlineLanguageModel.summarize(request);
  },
  extract: async (request) => {
    held.calls += 1;
    await held.gate;
    return offlineLanguageModel.extract(request);
  },
};

let runtime: Runtime;
beforeAll(async () => {
  // Errors logged: a 500 from the redaction shows its cause in the CI log.
  runtime = await startTestRuntime({ REPLAY_MAX_EVENTS: "4", LOG_LEVEL: "error" }, { providers: { llm: slowModel } });
});
afterAll(() => runtime.close());

const everything = async (userId: string) => {
  const memories = (await call(runtime.app, "GET", `/v1/memories?user_id=${userId}&include_expired=true&limit=500`)).body.memories;
  const histories = await Promise.all(
    memories.map(async (memory: { id: string }) => (await call(runtime.app, "GET", `/v1/memories/${memory.id}/history`)).body),
  );
  const context = (
    await call(runtime.app, "POST", "/v1/context", { user_id: userId, query: "Where does the user live?", max_tokens: 2000 })
  ).body;
  const search = (await call(runtime.app, "POST", "/v1/memories/search", { user_id: userId, query: "Porto Zorbinth bakery", limit: 50 }))
    .body;
  const exported = await runtime.app.request(`/v1/users/${userId}/export`);
  return JSON.stringify({ memories, histories, context, search, exported: await exported.text() });
};

describe("cascading retraction: POST /v1/sessions/:id/events/:seq/redact", () => {
  it("removes an event's words from the log, summaries, facts, vectors, history and pipeline runs, and restores what it replaced", async () => {
    const sessionId = await createSession(runtime.app, "vera");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [
        message("user", "I live in Dresden."),
        message("assistant", "Dresden is a lovely city."),
        message("user", "We moved to Porto, right above the Zorbinth bakery. I love Zorbinth pastries."),
        message("assistant", "Lovely, enjoy the pastries."),
        message("user", "I love hiking on weekends."),
      ],
    });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "vera");
    expect(await everything("vera")).toContain("Zorbinth");
    const location = async () =>
      (await call(runtime.app, "GET", "/v1/memories?user_id=vera&type=semantic&key=profile:location")).body.memories.map(
        (memory: { content: string }) => memory.content,
      );
    expect(await location()).toEqual(["User lives in Porto."]);

    const { status, body } = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events/3/redact`, { reason: "user request" });
    expect(status).toBe(200);
    expect(body.redaction).toMatchObject({ seq: 3, redacted_now: true, versions_restored: 1 });
    expect(body.redaction.memories_retracted).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await waitForSettled(runtime.app, "vera");

    // The log keeps the seq (gapless), the role and the time; the words are gone.
    const events = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events`)).body.events;
    expect(events.map((event: { seq: number }) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events[2]).toMatchObject({ role: "user", content: "", data: { tombstone: { reason: "user request" } } });
    // As if it had never been said: Dresden is current again, the rest of the session is still remembered.
    expect(await location()).toEqual(["User lives in Dresden."]);
    const seen = await everything("vera");
    expect(seen).not.toMatch(/Zorbinth|Porto/);
    expect(seen).toContain("hiking");
    expect(seen).toMatch(/"operation":"REDACT"/);
    // Summaries were written again from the tombstone (replay ran over the chunk again).
    const summaries = (await call(runtime.app, "GET", "/v1/memories?user_id=vera&subtype=summary")).body.memories;
    expect(summaries.length).toBeGreaterThan(0);
    // Nowhere in the database: every text and JSON column of every table, the executor's steps included.
    expect(await findTraces(runtime.database.db, ["Zorbinth"])).toEqual([]);

    // Idempotent; a missing event is 404, a bad seq 400 naming the field.
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events/3/redact`, {})).body.redaction.redacted_now).toBe(false);
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events/99/redact`, {})).status).toBe(404);
    const bad = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events/x1/redact`, {});
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].field).toBe("path.seq");
  });

  it("holds while replay and reflection are in flight with the words already read", async () => {
    const sessionId = await createSession(runtime.app, "wren");
    let release = () => {};
    held.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = held.calls;
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I work at Quillothek as a baker."), message("assistant", "Nice."), message("user", "I love sailing.")],
    });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    // A model call has the words and waits.
    await waitUntil(() => held.calls > before, "a model call holding the words", 30_000);
    const { status } = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events/1/redact`, {});
    expect(status).toBe(200);
    release();
    held.gate = null;
    await new Promise((resolve) => setTimeout(resolve, 300));
    await waitForSettled(runtime.app, "wren");
    expect(await everything("wren")).not.toContain("Quillothek");
    expect(await findTraces(runtime.database.db, ["Quillothek"])).toEqual([]);
    expect(await everything("wren")).toContain("sailing");
  });

  it("writes nothing a run read before the redaction, when the run itself cannot be cancelled (Inngest Cloud keeps its runs)", async () => {
    const sessionId = await createSession(runtime.app, "yara");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I live in Zeldrona.")] });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "yara");
    const [event] = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events`)).body.events;
    // What a replay and a reflection read before the redaction, still to be written.
    const said = { id: event.id, sessionId, seq: 1, content: "I live in Zeldrona.", occurredAt: new Date(event.occurred_at) };
    const extraction = await offlineLanguageModel.extract({ turns: [{ role: "user", content: said.content, seq: 1 }] });
    expect(extraction.facts.map((fact) => fact.content)).toEqual(["User lives in Zeldrona."]);
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events/1/redact`, {})).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await waitForSettled(runtime.app, "yara");

    const scope = { appId: "default", userId: "yara" };
    const consolidated = await consolidate(
      { db: runtime.database.db, embedder: runtime.providers.embedder },
      scope,
      groundExtraction(extraction, [said]),
      { actor: "deep-reflection", now: new Date() },
    );
    expect(consolidated).toEqual([]);
    // The replay that read the event before its redaction, committing past the current watermark:
    // its writer refuses the chunk and the whole unit of work (watermark included) rolls back.
    const [watermark] = await queryRows<{ replayed_seq: number }>(
      runtime.database.db,
      sql`SELECT replayed_seq FROM sessions WHERE id = ${sessionId}`,
    );
    const episode = await writeChunkEpisodes(
      runtime.database.db,
      {
        jobId: randomUUID(),
        session: { id: sessionId, ...scope, endedAt: null },
        fromSeq: Number(watermark?.replayed_seq),
        chunkStart: 1,
        more: false,
        toSeq: 1,
        events: [
          { id: event.id, seq: 1, role: "user", speaker: "user", content: said.content, occurredAt: event.occurred_at, importance: 0.5 },
        ],
      },
      { text: "The user said: I live in Zeldrona." },
      { model: offlineLanguageModel.id, now: new Date() },
    );
    expect(episode).toEqual({ applied: false, reason: "source_redacted" });
    expect(await findTraces(runtime.database.db, ["Zeldrona"])).toEqual([]);
  });
});
