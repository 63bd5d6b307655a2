import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from "@ai-sdk/provider";
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessClient } from "../../examples/in-process.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { memoryMiddleware } from "../../integrations/ai-sdk.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

const usage: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const stop = { unified: "stop" as const, raw: "stop" };

let runtime: Runtime;
let sessionId: string;
beforeAll(async () => {
  runtime = await startTestRuntime({ REFLECTION_IMPORTANCE_THRESHOLD: "1" });
  const earlier = await createSession(runtime.app, "leo");
  await call(runtime.app, "POST", `/v1/sessions/${earlier}/events`, {
    events: [message("user", "I am vegetarian and I live in Ghent."), message("assistant", "Handy to know!")],
  });
  await call(runtime.app, "POST", `/v1/sessions/${earlier}/end`);
  await waitForSettled(runtime.app, "leo");
  sessionId = await createSession(runtime.app, "leo");
});
afterAll(() => runtime.close());

const client = () => inProcessClient(runtime.app);
const logOf = async () =>
  ((await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events`)).body.events as { role: string; content: string }[]).map(
    (event) => `${event.role}: ${event.content}`,
  );

describe("Vercel AI SDK memory middleware (wrapLanguageModel)", () => {
  it("puts the context window in front of a generateText call and appends the turn to the session", async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: { content: [{ type: "text", text: "Try the falafel place on Korenmarkt." }], finishReason: stop, usage, warnings: [] },
    });
    const model = wrapLanguageModel({ model: mock, middleware: memoryMiddleware(client(), { userId: "leo", sessionId, maxTokens: 600 }) });
    const { text } = await generateText({ model, prompt: "Where should I eat tonight?" });
    expect(text).toBe("Try the falafel place on Korenmarkt.");

    // The model saw the user's memory as a system message before the conversation.
    const prompt = mock.doGenerateCalls[0]?.prompt ?? [];
    expect(prompt[0]?.role).toBe("system");
    expect(JSON.stringify(prompt[0])).toContain("vegetarian");
    expect(prompt.at(-1)?.role).toBe("user");
    expect(await logOf()).toEqual(["user: Where should I eat tonight?", "assistant: Try the falafel place on Korenmarkt."]);
  });

  it("does the same for streamText, appending once the stream has ended", async () => {
    const chunks: LanguageModelV4StreamPart[] = [
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Ghent has " },
      { type: "text-delta", id: "t", delta: "great vegetarian food." },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: stop, usage },
    ];
    const mock = new MockLanguageModelV4({ doStream: { stream: simulateReadableStream({ chunks }) } });
    const model = wrapLanguageModel({ model: mock, middleware: memoryMiddleware(client(), { userId: "leo", sessionId, maxTokens: 600 }) });
    const result = streamText({ model, prompt: "Any food tips for my city?" });
    expect(await result.text).toBe("Ghent has great vegetarian food.");
    expect(JSON.stringify(mock.doStreamCalls[0]?.prompt[0])).toContain("Ghent");
    expect((await logOf()).slice(-2)).toEqual(["user: Any food tips for my city?", "assistant: Ghent has great vegetarian food."]);
  });
});
