import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
let sessionId: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ REPLAY_MAX_EVENTS: "6" });
  sessionId = await createSession(runtime.app, "rhea");
  const lines = [
    "I live in Porto and I work as a nurse.",
    "Porto is lovely in spring.",
    "What should I cook for my sister's birthday?",
    "A grilled sardine dinner would suit Porto in June.",
    "My sister Ines loves sardines.",
    "Then sardines it is.",
    "I also play the banjo in a folk band.",
    "Folk and banjo, a fine mix.",
    "We rehearse on Thursdays near the river.",
    "Sounds like a good routine.",
  ];
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: lines.map((line, i) => message(i % 2 ? "assistant" : "user", line)),
  });
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  await waitForSettled(runtime.app, "rhea");
});
afterAll(() => runtime.close());

interface Receipt {
  memory_id: string;
  content: string;
  recall_rank: number | null;
  reason: string;
  left_out_because?: string;
  signals: {
    vector_rank: number | null;
    bm25_rank: number | null;
    similarity: number;
    coverage: number;
    fused_score: number;
    channels: { channel: string; rank: number }[];
  };
}

describe("retrieval receipts (explain: true)", () => {
  it("explains every memory in the window and every candidate left out, with the signals behind its rank", async () => {
    const { status, body } = await call(runtime.app, "POST", "/v1/context", {
      user_id: "rhea",
      query: "Where does the user live and what do they do in Porto?",
      max_tokens: 120,
      explain: true,
    });
    expect(status).toBe(200);
    const packed = body.sections.flatMap((section: { items: { memory_id?: string }[] }) =>
      section.items.flatMap((item) => (item.memory_id ? [item.memory_id] : [])),
    );
    const chosen: Receipt[] = body.explanation.chosen;
    const leftOut: Receipt[] = body.explanation.left_out;
    expect(chosen.map((receipt) => receipt.memory_id).sort()).toEqual([...packed].sort());
    expect(chosen.length).toBeGreaterThan(0);
    // A small budget leaves candidates out, each with its reason; nothing is both chosen and left out.
    expect(leftOut.some((receipt) => receipt.left_out_because === "budget")).toBe(true);
    expect(leftOut.filter((receipt) => packed.includes(receipt.memory_id))).toEqual([]);
    expect(body.explanation.considered).toBeGreaterThanOrEqual(chosen.length + leftOut.length);
    for (const receipt of [...chosen, ...leftOut]) {
      if (receipt.recall_rank === null) {
        expect(receipt.reason).toMatch(/the turn after a top-ranked turn/);
        continue;
      }
      // Found by at least one channel, and the fused score is what those places give (RRF, k = 60);
      // the vector and text places are the ones the receipt names.
      const { vector_rank, bm25_rank, fused_score, channels } = receipt.signals;
      expect(channels.length).toBeGreaterThan(0);
      const rrf = channels.reduce((sum, place) => sum + 1 / (60 + place.rank), 0);
      expect(fused_score).toBeCloseTo(rrf, 3);
      expect(channels.find((place) => place.channel === "vector")?.rank ?? null).toBe(vector_rank);
      expect(channels.find((place) => place.channel === "text")?.rank ?? null).toBe(bm25_rank);
      expect(receipt.reason).toMatch(/^ranked \d+ of \d+ by fused score: /);
    }
    // The fact the query is about was found by its words.
    const home = [...chosen, ...leftOut].find((receipt) => receipt.content === "User lives in Porto.");
    expect(home?.signals.bm25_rank).not.toBeNull();
    expect(home?.signals.coverage).toBeGreaterThan(0);
  });

  it("adds nothing without explain", async () => {
    const { body } = await call(runtime.app, "POST", "/v1/context", { user_id: "rhea", query: "Porto", max_tokens: 200 });
    expect(body.explanation).toBeUndefined();
  });

  it("gives search results their signals and the candidates below relevance or past the limit", async () => {
    const { status, body } = await call(runtime.app, "POST", "/v1/memories/search", {
      user_id: "rhea",
      query: "sardines for the sister's birthday",
      limit: 2,
      explain: true,
    });
    expect(status).toBe(200);
    expect(body.memories).toHaveLength(2);
    for (const memory of body.memories) {
      expect(memory.why).toMatch(/final score|replaced/);
      expect(memory.signals).toMatchObject({ fused_score: expect.any(Number), age_days: expect.any(Number), superseded: false });
    }
    const reasons = new Set(body.explanation.left_out.map((entry: { because: string }) => entry.because));
    expect(reasons.has("beyond_limit")).toBe(true);
    // No memory holds both words, so none is 0.99 relevant.
    const gated = await call(runtime.app, "POST", "/v1/memories/search", {
      user_id: "rhea",
      query: "banjo sardines",
      min_relevance: 0.99,
      explain: true,
    });
    expect(gated.body.no_relevant_memory).toBe(true);
    expect(gated.body.explanation.left_out.every((entry: { because: string }) => entry.because === "below_relevance")).toBe(true);
    expect(gated.body.explanation.left_out.length).toBeGreaterThan(0);
    const plain = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "rhea", query: "sardines" });
    expect(plain.body.explanation).toBeUndefined();
    expect(plain.body.memories[0].signals).toBeUndefined();
  });
});
