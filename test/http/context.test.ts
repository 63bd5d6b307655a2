import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
let sessionId: string;
beforeAll(async () => {
  runtime = await startTestRuntime();
  sessionId = await createSession(runtime.app, "dana");
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: Array.from({ length: 30 }, (_, i) =>
      message(
        i % 2 ? "assistant" : "user",
        i === 4
          ? "Please remember that my cat is called Miso and she is twelve years old."
          : `Turn ${i} talks about planning a garden with tomatoes and basil.`,
      ),
    ),
  });
  const other = await createSession(runtime.app, "eve");
  await call(runtime.app, "POST", `/v1/sessions/${other}/events`, {
    events: [message("user", "My cat is called Pixel and I love sailing.")],
  });
  await waitForSettled(runtime.app, "dana");
  await waitForSettled(runtime.app, "eve");
});
afterAll(() => runtime.close());

const context = (body: Record<string, unknown>) => call(runtime.app, "POST", "/v1/context", body);

describe("POST /v1/context", () => {
  it.each([50, 120, 400, 2000])("stays within max_tokens − reserve_output_tokens at max_tokens=%i", async (maxTokens) => {
    const { status, body } = await context({
      user_id: "dana",
      session_id: sessionId,
      query: "What is my cat called?",
      max_tokens: maxTokens,
      reserve_output_tokens: 20,
      system: "Be brief.",
    });
    expect(status).toBe(200);
    expect(body.budget).toBe(maxTokens - 20);
    expect(body.total_tokens).toBe(o200kTokenizer.count(body.prompt));
    expect(body.total_tokens).toBeLessThanOrEqual(maxTokens - 20);
    expect(body.sections[0]).toMatchObject({ kind: "system", items: [{ text: "Be brief." }] });
    for (const section of body.sections) for (const item of section.items) expect(item.tokens).toBeGreaterThan(0);
  });

  it("puts the user's relevant memory first, with its source events", async () => {
    const { body } = await context({ user_id: "dana", query: "What is my cat called?", max_tokens: 2000 });
    const memories = body.sections.find((section: { kind: string }) => section.kind === "memories");
    expect(memories.items[0].text).toContain("Miso");
    expect(memories.items[0].sources.length).toBeGreaterThan(0);
    expect(memories.items[0].sources.every((source: { session_id: string }) => source.session_id === sessionId)).toBe(true);
    // Without a session there is no history section.
    expect(body.sections.map((section: { kind: string }) => section.kind)).toEqual(["memories"]);
  });

  it("never shows one user's memories to another", async () => {
    const { body } = await context({ user_id: "eve", query: "What is my cat called?", max_tokens: 4000 });
    expect(body.prompt).toContain("Pixel");
    expect(body.prompt).not.toContain("Miso");
    const stranger = await context({ user_id: "mallory", query: "cat Miso Pixel", max_tokens: 4000 });
    expect(stranger.body.sections).toEqual([]);
    expect(stranger.body.total_tokens).toBe(0);
  });

  it("answers 404 for a session of another user, as if it did not exist", async () => {
    const { status, body } = await context({ user_id: "eve", session_id: sessionId, query: "cat", max_tokens: 500 });
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });

  it("answers 422 when the system instruction alone exceeds the budget", async () => {
    const { status, body } = await context({ user_id: "dana", query: "cat", max_tokens: 40, system: "Follow these rules. ".repeat(50) });
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: "unprocessable", details: { field: "system" } });
  });

  it.each([
    [{ query: "x", max_tokens: 100 }, "body.user_id"],
    [{ user_id: "dana", query: "x", max_tokens: 100, reserve_output_tokens: 100 }, "body.reserve_output_tokens"],
    [{ user_id: "dana", query: "", max_tokens: 100 }, "body.query"],
    [{ user_id: "dana", query: "x", max_tokens: "lots" }, "body.max_tokens"],
    [{ user_id: "dana", query: "x", max_tokens: 100, session_id: "abc" }, "body.session_id"],
    [{ user_id: "dana", query: "x", max_tokens: 100, budget: 3 }, "body.budget"],
  ])("rejects %j with 400 naming %s", async (payload, field) => {
    const { status, body } = await context(payload);
    expect(status).toBe(400);
    expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
  });

  // Issue 50: a bad max_tokens also reported a reserve_output_tokens error nobody sent.
  it.each([
    [{ user_id: "dana", query: "x", max_tokens: -5 }, ["body.max_tokens"]],
    [{ user_id: "dana", query: "x", max_tokens: -5, reserve_output_tokens: 10 }, ["body.max_tokens"]],
    [{ user_id: "dana", query: "x", max_tokens: 100, reserve_output_tokens: -1 }, ["body.reserve_output_tokens"]],
    [{ user_id: "dana", query: "x", max_tokens: 100, history: { strategy: "sliding_window", max_turns: 0 } }, ["body.history.max_turns"]],
  ])("rejects %j naming only %j", async (payload, fields) => {
    const { status, body } = await context(payload);
    expect(status).toBe(400);
    expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toEqual(fields);
  });
});

describe("GET /v1/memories/:id", () => {
  it("answers 404 for an unknown memory", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000009", "nope"]) {
      const { status, body } = await call(runtime.app, "GET", `/v1/memories/${id}`);
      expect(status).toBe(404);
      expect(body.error.code).toBe("not_found");
    }
  });
});
