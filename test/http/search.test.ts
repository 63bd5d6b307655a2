import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { timeAgo } from "../../src/memory/recall/memory-index.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
  const add = (user: string, body: Record<string, unknown>) => call(runtime.app, "POST", "/v1/memories", { user_id: user, ...body });
  await add("vic", {
    type: "semantic",
    subtype: "profile",
    key: "pet:dog",
    value: "Rex",
    content: "Vic has a dog called Rex.",
    valid_at: hoursAgo(30),
  });
  await add("vic", {
    type: "semantic",
    subtype: "preference",
    key: "drink",
    value: "tea",
    content: "Vic drinks green tea every morning.",
    valid_at: hoursAgo(24 * 10),
  });
  await add("vic", {
    type: "semantic",
    subtype: "preference",
    key: "drink",
    value: "coffee",
    content: "Vic switched to black coffee.",
    valid_at: hoursAgo(24 * 2),
  });
  await add("vic", { type: "insight", content: "Vic is training for a marathon in the autumn.", valid_at: hoursAgo(0.5) });
  await add("wes", {
    type: "semantic",
    subtype: "profile",
    key: "pet:dog",
    value: "Bolt",
    content: "Wes has a dog called Bolt.",
    valid_at: hoursAgo(1),
  });
});
afterAll(() => runtime.close());

const search = (body: Record<string, unknown>) => call(runtime.app, "POST", "/v1/memories/search", { user_id: "vic", ...body });

describe("POST /v1/memories/search", () => {
  it("ranks the relevant memory first, with scores, relevance and sources", async () => {
    const { status, body } = await search({ query: "What is the name of Vic's dog?", limit: 3 });
    expect(status).toBe(200);
    expect(body.memories[0]).toMatchObject({ content: "Vic has a dog called Rex.", type: "semantic" });
    expect(body.memories[0].relevance).toBeGreaterThan(0.3);
    const scores = body.memories.map((memory: { score: number }) => memory.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body.no_relevant_memory).toBe(false);
  });

  it("finds memories without an embedding by text, and memories without shared words by meaning", async () => {
    const added = await call(runtime.app, "POST", "/v1/memories", {
      user_id: "xia",
      type: "insight",
      content: "Xia collects vintage typewriters from flea markets.",
    });
    await call(runtime.app, "POST", "/v1/memories", { user_id: "xia", type: "insight", content: "Xia adores her kitten." });
    await runtime.database.db.execute(sql`UPDATE memories SET embedding = NULL, embedding_model = NULL WHERE id = ${added.body.memory.id}`);
    const byText = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "xia", query: "typewriters" });
    expect(byText.body.memories[0]).toMatchObject({ id: added.body.memory.id, similarity: 0 });
    const byMeaning = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "xia", query: "cat", limit: 1 });
    expect(byMeaning.body.memories[0].content).toBe("Xia adores her kitten.");
    expect(byMeaning.body.memories[0].similarity).toBeGreaterThan(0.3);
  });

  it("never returns another user's memories", async () => {
    const { body } = await search({ query: "dog called Bolt", limit: 10 });
    expect(body.memories.map((memory: { content: string }) => memory.content)).not.toContain("Wes has a dog called Bolt.");
  });

  it("answers 'no relevant memory' when nothing passes the relevance threshold", async () => {
    const { body } = await search({ query: "quantum chromodynamics lattice gauge", min_relevance: 0.5 });
    expect(body).toMatchObject({ memories: [], no_relevant_memory: true });
  });

  it("filters by type", async () => {
    const { body } = await search({ query: "marathon training dog tea", types: ["insight"] });
    expect(body.memories.map((memory: { type: string }) => memory.type)).toEqual(["insight"]);
  });

  it("answers as of a past time with the version valid then", async () => {
    const now = await search({ query: "What does Vic drink?", types: ["semantic"] });
    expect(now.body.memories.map((memory: { content: string }) => memory.content)).toContain("Vic switched to black coffee.");
    expect(now.body.memories.map((memory: { content: string }) => memory.content)).not.toContain("Vic drinks green tea every morning.");
    const before = await search({ query: "What does Vic drink?", types: ["semantic"], as_of: hoursAgo(24 * 5) });
    const contents = before.body.memories.map((memory: { content: string }) => memory.content);
    expect(contents).toContain("Vic drinks green tea every morning.");
    expect(contents).not.toContain("Vic switched to black coffee.");
  });

  it("restricts to a time window from a phrase or a range", async () => {
    const yesterday = await search({ query: "Vic", time_window: "yesterday" });
    expect(yesterday.body.memories.map((memory: { content: string }) => memory.content)).toEqual(["Vic has a dog called Rex."]);
    expect(yesterday.body.time_window.from).toBeTruthy();
    const justNow = await search({ query: "Vic", time_window: "just now" });
    expect(justNow.body.memories.map((memory: { content: string }) => memory.content)).toEqual([
      "Vic is training for a marathon in the autumn.",
    ]);
    const range = await search({ query: "Vic", time_window: { from: hoursAgo(72), to: hoursAgo(36) } });
    expect(range.body.memories.map((memory: { content: string }) => memory.content)).toEqual(["Vic switched to black coffee."]);
  });

  it.each([
    [{ query: "" }, "body.query"],
    [{ query: "x", time_window: "next week" }, "body.time_window"],
    [{ query: "x", time_window: { from: hoursAgo(1), to: hoursAgo(2) } }, "body.time_window"],
    [{ query: "x", min_relevance: 2 }, "body.min_relevance"],
    [{ query: "x", types: ["gossip"] }, "body.types.0"],
  ])("rejects %j with 400 naming %s", async (payload, field) => {
    const { status, body } = await search(payload);
    expect(status).toBe(400);
    expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
  });

  it("records access of returned memories in a batch after the response", async () => {
    const { body } = await search({ query: "marathon", limit: 1 });
    const id = body.memories[0].id;
    await runtime.background.settle();
    expect((await call(runtime.app, "GET", `/v1/memories/${id}`)).body.access_count).toBeGreaterThanOrEqual(1);
  });
});

describe("POST /v1/adk/search_memory", () => {
  it("answers in ADK's SearchMemoryResponse shape", async () => {
    const { status, body } = await call(runtime.app, "POST", "/v1/adk/search_memory", {
      app_name: "default",
      user_id: "vic",
      query: "Vic's dog",
    });
    expect(status).toBe(200);
    expect(body.memories[0]).toEqual({
      content: { role: "user", parts: [{ text: "Vic has a dog called Rex." }] },
      author: "memory",
      timestamp: expect.any(String),
    });
  });
});

describe("memory index and expand (S6)", () => {
  it("lists compact lines, most important first, and expands ids of the same user only", async () => {
    const { status, body } = await call(runtime.app, "GET", "/v1/memories/index?user_id=vic&limit=3");
    expect(status).toBe(200);
    expect(body.index).toHaveLength(3);
    expect(body.index[0]).toMatchObject({
      id: expect.any(String),
      when: expect.stringMatching(/ago|just now/),
      summary: expect.any(String),
    });
    const importances = body.index.map((entry: { importance: number }) => entry.importance);
    expect(importances).toEqual([...importances].sort((a, b) => b - a));
    expect(body.text.split("\n")[0]).toContain(`[${body.index[0].id}]`);

    const wes = (await call(runtime.app, "GET", "/v1/memories/index?user_id=wes")).body.index[0].id;
    const expanded = await call(runtime.app, "POST", "/v1/memories/expand", { user_id: "vic", ids: [body.index[0].id, wes] });
    expect(expanded.body.memories.map((memory: { id: string }) => memory.id)).toEqual([body.index[0].id]);
    expect(expanded.body.missing).toEqual([wes]);
  });

  it("says how long ago in words", () => {
    const now = new Date("2024-05-10T12:00:00Z");
    expect(timeAgo(new Date("2024-05-10T11:59:30Z"), now)).toBe("just now");
    expect(timeAgo(new Date("2024-05-10T09:00:00Z"), now)).toBe("3 hours ago");
    expect(timeAgo(new Date("2024-05-09T12:00:00Z"), now)).toBe("1 day ago");
    expect(timeAgo(new Date("2023-05-01T12:00:00Z"), now)).toBe("1 year ago");
  });
});
