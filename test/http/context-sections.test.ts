import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
let sessionId: string;
const kinds = (body: { sections: { kind: string }[] }) => body.sections.map((section) => section.kind);
const historySeqs = (body: { sections: { kind: string; items: { sources: { seq: number }[] }[] }[] }) =>
  body.sections.find((section) => section.kind === "history")?.items.flatMap((item) => item.sources.map((source) => source.seq)) ?? [];

beforeAll(async () => {
  runtime = await startTestRuntime({ REPLAY_MAX_EVENTS: "10" });
  sessionId = await createSession(runtime.app, "yan");
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: Array.from({ length: 27 }, (_, i) =>
      message(
        i % 2 ? "assistant" : "user",
        i === 2 ? "My name is Yan and I live in Porto." : `Turn ${i + 1} is about organising a weekend on the coast with cousins.`,
      ),
    ),
  });
  await call(runtime.app, "POST", `/v1/memories`, {
    user_id: "yan",
    type: "semantic",
    subtype: "preference",
    key: "attitude:cheese",
    value: "loves",
    content: "Yan loves cheese.",
  });
  await waitForSettled(runtime.app, "yan");
});
afterAll(() => runtime.close());

const context = (body: Record<string, unknown>) =>
  call(runtime.app, "POST", "/v1/context", { user_id: "yan", session_id: sessionId, max_tokens: 3000, ...body });

describe("context sections (S4)", () => {
  it("renders every section in priority order with the user message last, within budget", async () => {
    const { status, body } = await context({
      query: "Where does Yan live and what does he like?",
      system: "You are a travel assistant.",
      tools: ["search_flights", { name: "book_hotel", description: "Books a hotel room." }],
      user_message: "Can you find me a hotel?",
      knowledge: [{ text: "Porto is in northern Portugal.", source: "wiki" }],
      // The last turns only: recalled turns from earlier are memories, not history.
      history: { strategy: "trim", max_turns: 6 },
    });
    expect(status).toBe(200);
    expect(kinds(body)).toEqual(["system", "tools", "facts", "memories", "knowledge", "history", "user_message"]);
    // Nothing twice: no memory repeats a turn the history holds.
    const inHistory = new Set(historySeqs(body));
    const memories = body.sections.find((section: { kind: string }) => section.kind === "memories");
    for (const item of memories.items as { sources: { seq: number }[] }[])
      expect(item.sources.every((source) => inHistory.has(source.seq))).toBe(false);
    expect(body.prompt.trimEnd().endsWith("## Current user message\nCan you find me a hotel?")).toBe(true);
    expect(body.prompt).toContain("- book_hotel: Books a hotel room.");
    expect(
      body.sections.find((section: { kind: string }) => section.kind === "facts").items.map((item: { text: string }) => item.text),
    ).toEqual(expect.arrayContaining(["- Yan loves cheese."]));
    expect(body.total_tokens).toBe(o200kTokenizer.count(body.prompt));
    expect(body.total_tokens).toBeLessThanOrEqual(3000);
  });

  it("answers 422 naming a required section that cannot fit", async () => {
    const { status, body } = await context({
      query: "x",
      max_tokens: 100,
      tools: Array.from({ length: 40 }, (_, i) => `tool_number_${i}`),
    });
    expect(status).toBe(422);
    expect(body.error.details.field).toBe("tools");
  });

  it("honours budget ratios", async () => {
    const noHistory = await context({ query: "coast weekend", budget_ratios: { history: 0, facts: 0, knowledge: 0 }, max_tokens: 400 });
    const mostlyHistory = await context({
      query: "coast weekend",
      budget_ratios: { history: 1, memories: 0.05, facts: 0 },
      max_tokens: 400,
    });
    const tokensOf = (body: { sections: { kind: string; tokens: number }[] }, kind: string) =>
      body.sections.find((section) => section.kind === kind)?.tokens ?? 0;
    expect(tokensOf(mostlyHistory.body, "history")).toBeGreaterThan(tokensOf(noHistory.body, "history"));
  });
});

describe("history compression (S5)", () => {
  it("none: as many newest turns as fit; trim: at most max_turns", async () => {
    expect(historySeqs((await context({ query: "trip" })).body)).toHaveLength(27);
    expect(historySeqs((await context({ query: "trip", history: { strategy: "trim", max_turns: 5 } })).body)).toEqual([23, 24, 25, 26, 27]);
  });

  it("summarize: recent turns verbatim, older ones through their summaries", async () => {
    const { body } = await context({ query: "trip", history: { strategy: "summarize", max_turns: 5 } });
    const history = body.sections.find((section: { kind: string }) => section.kind === "history");
    const earlier = history.items.filter((item: { text: string }) => item.text.startsWith("(earlier) "));
    expect(earlier.length).toBeGreaterThan(0);
    expect(earlier.every((item: { sources: { seq: number }[] }) => item.sources.every((source) => source.seq < 23))).toBe(true);
    expect(history.items.slice(-5).map((item: { sources: { seq: number }[] }) => item.sources[0]?.seq)).toEqual([23, 24, 25, 26, 27]);
  });

  it("sliding_window: the window start moves in steps, so consecutive windows overlap", async () => {
    const sliding = { strategy: "sliding_window", max_turns: 10, overlap: 4 };
    const seqs = historySeqs((await context({ query: "trip", history: sliding })).body);
    // 27 turns, window 10, step 6: starts are aligned to 1, 7, 13, 19, …; the window is 13-27.
    expect(seqs).toEqual(Array.from({ length: 15 }, (_, i) => 13 + i));
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "One more turn about the trip.")] });
    const after = historySeqs((await context({ query: "trip", history: sliding })).body);
    // Turn 28 moves the start one step; the two windows share more than `overlap` turns.
    expect(after).toEqual(Array.from({ length: 10 }, (_, i) => 19 + i));
    expect(after.filter((seq) => seqs.includes(seq)).length).toBeGreaterThanOrEqual(4);
  });

  it("rejects an overlap that is not smaller than the window", async () => {
    const { status, body } = await context({ query: "trip", history: { strategy: "sliding_window", max_turns: 5, overlap: 5 } });
    expect(status).toBe(400);
    expect(body.error.details.issues[0].field).toBe("body.history.overlap");
  });
});
