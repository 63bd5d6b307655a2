import {
  BaseLlm,
  type BaseLlmConnection,
  type Event,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LOAD_MEMORY,
  PRELOAD_MEMORY,
  Runner,
} from "@google/adk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessClient } from "../../examples/in-process.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { MnemoMemoryService } from "../../integrations/adk/memory-service.js";
import { MnemoSessionService } from "../../integrations/adk/session-service.js";
import { call, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * A model with a script instead of weights: each call records the request ADK built and answers
 * with the next step, which may read the request (a function call, or text quoting what it saw).
 */
class ScriptedModel extends BaseLlm {
  readonly requests: LlmRequest[] = [];
  private readonly steps: ((request: LlmRequest) => LlmResponse)[] = [];

  constructor() {
    super({ model: "scripted" });
  }

  answer(step: (request: LlmRequest) => LlmResponse): this {
    this.steps.push(step);
    return this;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    this.requests.push(
      structuredClone({ contents: request.contents, config: { systemInstruction: request.config?.systemInstruction } }) as LlmRequest,
    );
    const step = this.steps.shift();
    if (!step) throw new Error("the script has no step left");
    yield step(request);
  }

  connect(): Promise<BaseLlmConnection> {
    throw new Error("no live connection in a scripted model");
  }
}

const says = (text: string): LlmResponse => ({ content: { role: "model", parts: [{ text }] }, turnComplete: true });
const systemText = (request: LlmRequest | undefined) => JSON.stringify(request?.config?.systemInstruction ?? "");
const user = (text: string) => ({ role: "user", parts: [{ text }] });

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ REFLECTION_IMPORTANCE_THRESHOLD: "1000" });
});
afterAll(() => runtime.close());

const client = () => inProcessClient(runtime.app);

async function drain(events: AsyncGenerator<Event>): Promise<Event[]> {
  const seen: Event[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("Google ADK: MnemoSessionService and MnemoMemoryService under ADK's own Runner", () => {
  it("keeps sessions, events and scoped state in the log, and ADK's memory tools recall what earlier sessions taught", async () => {
    const sessionService = new MnemoSessionService(client());
    const memoryService = new MnemoMemoryService(client());
    const model = new ScriptedModel();
    const agent = new LlmAgent({ name: "cook", model, instruction: "You are a cooking assistant.", tools: [PRELOAD_MEMORY, LOAD_MEMORY] });
    const runner = new Runner({ appName: "kitchen", agent, sessionService, memoryService });

    // Session one: state in all three scopes (temp: is never stored), one exchange.
    const first = await sessionService.createSession({
      appName: "kitchen",
      userId: "ada",
      state: { "app:locale": "en-GB", "user:tier": "gold", draft: 1, "temp:scratch": true },
    });
    model.answer(() => says("Noted: no peanuts, and Ghent it is."));
    await drain(runner.runAsync({ userId: "ada", sessionId: first.id, newMessage: user("I am allergic to peanuts and I live in Ghent.") }));

    const stored = (await call(runtime.app, "GET", `/v1/sessions/${first.id}`)).body;
    expect(stored).toMatchObject({
      app_id: "kitchen",
      user_id: "ada",
      state: { app: { locale: "en-GB" }, user: { tier: "gold" }, session: { draft: 1 } },
    });
    const log = (await call(runtime.app, "GET", `/v1/sessions/${first.id}/events`)).body.events as { role: string; content: string }[];
    expect(log.map((event) => `${event.role}: ${event.content}`)).toEqual([
      "user: I am allergic to peanuts and I live in Ghent.",
      "assistant: Noted: no peanuts, and Ghent it is.",
    ]);
    const reread = await sessionService.getSession({ appName: "kitchen", userId: "ada", sessionId: first.id });
    expect(reread?.state).toEqual({ draft: 1, "app:locale": "en-GB", "user:tier": "gold" });
    expect(reread?.events.map((event) => event.author)).toEqual(["user", "cook"]);

    // The session goes to memory: it ends and deep reflection derives facts from it.
    await memoryService.addSessionToMemory(reread as NonNullable<typeof reread>);
    await waitForSettled(runtime.app, "ada");

    // Session two: preload puts the memory in the instructions; the model also calls load_memory.
    const second = await sessionService.createSession({ appName: "kitchen", userId: "ada" });
    expect((await sessionService.getSession({ appName: "kitchen", userId: "ada", sessionId: second.id }))?.state).toEqual({
      "app:locale": "en-GB",
      "user:tier": "gold",
    });
    model
      .answer(() => ({ content: { role: "model", parts: [{ functionCall: { name: "load_memory", args: { query: "food allergies" } } }] } }))
      .answer((request) => {
        const answer = JSON.stringify(request.contents.at(-1));
        return says(answer.includes("peanut") ? "Make a sesame-free, peanut-free curry." : "I know nothing about you.");
      });
    const events = await drain(
      runner.runAsync({ userId: "ada", sessionId: second.id, newMessage: user("What should I cook tonight for my allergy?") }),
    );
    expect(systemText(model.requests[1])).toMatch(/PAST_CONVERSATIONS[\s\S]*peanut/i);
    expect(JSON.stringify(model.requests[2]?.contents.at(-1))).toMatch(/functionResponse[\s\S]*peanut/i);
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("Make a sesame-free, peanut-free curry.");

    // The log holds every final event of the run; function calls and responses carry no words.
    const secondLog = (await call(runtime.app, "GET", `/v1/sessions/${second.id}/events`)).body.events as {
      role: string;
      content: string;
      data: { adk: { id: string } };
    }[];
    expect(secondLog.map((event) => event.role)).toEqual(["user", "tool", "tool", "assistant"]);
    expect(secondLog.filter((event) => event.role === "tool").every((event) => event.content === "")).toBe(true);
    const reloaded = await sessionService.getSession({ appName: "kitchen", userId: "ada", sessionId: second.id });
    expect(reloaded?.events.map((event) => event.id)).toEqual(secondLog.map((event) => event.data.adk.id));

    const listed = await sessionService.listSessions({ appName: "kitchen", userId: "ada", order: "asc" });
    expect(listed.sessions.map((session) => session.id)).toEqual([first.id, second.id]);
    await expect(sessionService.deleteSession({ appName: "kitchen", userId: "ada", sessionId: first.id })).rejects.toThrow(/append-only/);
    expect(await sessionService.getSession({ appName: "kitchen", userId: "someone-else", sessionId: first.id })).toBeUndefined();
  });

  it("keeps an ADK session id of the caller's choosing, and appends a replayed event once", async () => {
    const sessionService = new MnemoSessionService(client());
    const session = await sessionService.createSession({ appName: "kitchen", userId: "bo", sessionId: "conversation-42" });
    expect(session.id).toBe("conversation-42");
    await expect(sessionService.createSession({ appName: "kitchen", userId: "bo", sessionId: "conversation-42" })).rejects.toThrow(
      /already exists/,
    );
    const model = new ScriptedModel().answer(() => says("Hello Bo."));
    const runner = new Runner({ appName: "kitchen", agent: new LlmAgent({ name: "cook", model }), sessionService });
    await drain(runner.runAsync({ userId: "bo", sessionId: "conversation-42", newMessage: user("Hi, I'm Bo.") }));
    const found = await sessionService.getSession({ appName: "kitchen", userId: "bo", sessionId: "conversation-42" });
    expect(found?.events).toHaveLength(2);
    // Another process (a fresh service) finds it by the same id; re-appending an event stores nothing twice.
    const again = new MnemoSessionService(client());
    const reopened = await again.getSession({ appName: "kitchen", userId: "bo", sessionId: "conversation-42" });
    await again.appendEvent({ session: reopened as NonNullable<typeof reopened>, event: found?.events[1] as Event });
    const sessions = (await call(runtime.app, "GET", "/v1/sessions?user_id=bo&app_id=kitchen")).body.sessions as {
      id: string;
      last_seq: number;
    }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.last_seq).toBe(2);
  });
});
