import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ REPLAY_MAX_EVENTS: "4" });
});
afterAll(() => runtime.close());

describe("append → fast replay → embedding → context window", () => {
  it("summarises a session into episodic memories that reach the context window with their source events", async () => {
    const sessionId = await createSession(runtime.app, "ana");
    const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [
        message("user", "I just moved to Lisbon for a new job at a design studio."),
        message("assistant", "Congratulations on the move! How are you finding Lisbon so far?"),
        message("user", "Please remember that my daughter Maya starts school on September 4th."),
        message("assistant", "Noted: Maya starts school on September 4th."),
        message("user", "I decided to buy a cargo bike instead of a car."),
      ],
    });
    const eventIds: string[] = appended.body.events.map((event: { id: string }) => event.id);
    await waitForSettled(runtime.app, "ana");

    const memories = (await call(runtime.app, "GET", "/v1/memories?user_id=ana&subtype=summary")).body.memories;
    // Five events with at most four per episode make two episodes, oldest range first in provenance.
    expect(memories).toHaveLength(2);
    for (const memory of memories) {
      expect(memory).toMatchObject({ type: "episodic", subtype: "summary", embedded: true, embedding_model: "use-lite-512" });
    }
    const detail = (await call(runtime.app, "GET", `/v1/memories/${memories[1].id}`)).body;
    expect(detail.content).toContain("September 4th");
    // The offline summary is extractive: its sources are exactly the turns it quotes.
    const quoted = detail.sources.map((source: { event_id: string }) => source.event_id);
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted.every((id: string) => eventIds.slice(0, 4).includes(id))).toBe(true);
    expect(quoted).toContain(eventIds[2]);
    const turns = (await call(runtime.app, "GET", "/v1/memories?user_id=ana&subtype=turn&limit=10")).body.memories;
    expect(turns.map((turn: { content: string }) => turn.content).sort()).toEqual(
      [
        "user: I just moved to Lisbon for a new job at a design studio.",
        "assistant: Congratulations on the move! How are you finding Lisbon so far?",
        "user: Please remember that my daughter Maya starts school on September 4th.",
        "assistant: Noted: Maya starts school on September 4th.",
        "user: I decided to buy a cargo bike instead of a car.",
      ].sort(),
    );

    const session = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body;
    expect(session.replayed_seq).toBe(5);

    const context = await call(runtime.app, "POST", "/v1/context", {
      user_id: "ana",
      session_id: sessionId,
      query: "When does Maya start school?",
      max_tokens: 400,
      reserve_output_tokens: 100,
      explain: true,
    });
    expect(context.status).toBe(200);
    expect(context.body.total_tokens).toBeLessThanOrEqual(300);
    // The session's five turns fit the history section, so no recalled memory repeats them: the
    // school turn is in the window once, with its event.
    const items = (context.body.sections as { kind: string; items: { text: string; sources: { event_id: string }[] }[] }[]).flatMap(
      (section) => section.items.map((item) => ({ kind: section.kind, ...item })),
    );
    const school = items.filter((item) => item.text.includes("Please remember that my daughter Maya starts school on September 4th."));
    expect(school.map((item) => item.kind)).toEqual(["history"]);
    expect(school[0]?.sources.map((source) => source.event_id)).toEqual([eventIds[2]]);
    const history = context.body.sections.find((section: { kind: string }) => section.kind === "history");
    expect(history.items.at(-1).text).toBe("user: I decided to buy a cargo bike instead of a car.");
    const inHistory = new Set(
      history.items.flatMap((item: { sources: { event_id: string }[] }) => item.sources.map((source) => source.event_id)),
    );
    for (const item of items.filter((found) => found.kind === "memories"))
      expect(item.sources.every((source) => inHistory.has(source.event_id))).toBe(false);
    // The receipts say why the recalled school turn is not packed: the history holds it, not the budget.
    const leftOut = context.body.explanation.left_out as { content: string; left_out_because: string }[];
    const schoolLeftOut = leftOut.filter((memory) => memory.content.includes("Maya starts school on September 4th"));
    expect(schoolLeftOut.length).toBeGreaterThan(0);
    expect(schoolLeftOut.map((memory) => memory.left_out_because)).toEqual(schoolLeftOut.map(() => "redundant"));

    // Without the session, the same question is answered from memory.
    const fromMemory = await call(runtime.app, "POST", "/v1/context", {
      user_id: "ana",
      query: "When does Maya start school?",
      max_tokens: 400,
      reserve_output_tokens: 100,
    });
    const memorySection = fromMemory.body.sections.find((section: { kind: string }) => section.kind === "memories");
    const schoolItems = memorySection.items.filter((item: { text: string }) => item.text.includes("September 4th"));
    expect(schoolItems.flatMap((item: { sources: { event_id: string }[] }) => item.sources.map((source) => source.event_id))).toContain(
      eventIds[2],
    );
    expect(fromMemory.body.prompt).toContain("## Relevant memories");
  });

  it("records one completed consolidation job per episode and never replays an event twice", async () => {
    const sessionId = await createSession(runtime.app, "ben");
    for (const text of ["I prefer tea over coffee in the morning.", "My sister lives in Porto and visits every summer."]) {
      await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", text)] });
    }
    await waitForSettled(runtime.app, "ben");
    // A redundant trigger (what the sweep does) finds nothing new and writes nothing.
    await runtime.executor?.ingest([
      { name: "memory/session.events-appended", data: { session_id: sessionId, app_id: "default", user_id: "ben", last_seq: 2 } },
    ]);
    await waitForSettled(runtime.app, "ben");

    const jobs = await queryRows<{ status: string; from_seq: number; to_seq: number }>(
      runtime.database.db,
      sql`SELECT status, from_seq, to_seq FROM consolidation_jobs WHERE user_id = 'ben' ORDER BY from_seq`,
    );
    expect(jobs.every((job) => job.status === "completed")).toBe(true);
    const covered = jobs.flatMap((job) => Array.from({ length: job.to_seq - job.from_seq + 1 }, (_, i) => job.from_seq + i));
    expect(covered).toEqual([1, 2]);
    const sources = await queryRows<{ seq: number }>(
      runtime.database.db,
      sql`SELECT s.seq FROM memory_sources s JOIN memories m ON m.id = s.memory_id WHERE m.user_id = 'ben' AND m.subtype = 'turn' ORDER BY s.seq`,
    );
    expect(sources.map((row) => row.seq)).toEqual([1, 2]);
  });

  it("summarises and reflects a session when it ends", async () => {
    const sessionId = await createSession(runtime.app, "cy");
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "Remember that I am allergic to peanuts.")],
    });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "cy");
    const episodes = (await call(runtime.app, "GET", "/v1/memories?user_id=cy&subtype=summary")).body.memories;
    expect(episodes).toHaveLength(1);
    expect(episodes[0].content).toContain("allergic to peanuts");
    const facts = (await call(runtime.app, "GET", "/v1/memories?user_id=cy&type=semantic")).body.memories;
    expect(facts.map((fact: { key: string; content: string }) => [fact.key, fact.content])).toEqual([
      ["allergy:peanut", "User is allergic to peanuts."],
    ]);
    expect((await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body.reflected_seq).toBe(1);
  });
});
