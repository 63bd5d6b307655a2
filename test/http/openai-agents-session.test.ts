import { Agent, type AgentInputItem, Runner, tool } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { inProcessClient } from "../../examples/in-process.js";
import { callsTool, ScriptedModel, says } from "../../examples/scripted-agents-model.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { memoryContextFilter } from "../../integrations/openai-agents/context-filter.js";
import { MnemoSession } from "../../integrations/openai-agents/session.js";
import { call, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ REFLECTION_IMPORTANCE_THRESHOLD: "1000" });
});
afterAll(() => runtime.close());

const client = () => inProcessClient(runtime.app);

const runnerWith = (model: ScriptedModel) => new Runner({ modelProvider: model.provider(), tracingDisabled: true });

type LoggedEvent = { seq: number; role: string; content: string; data: Record<string, unknown> | null };
async function logOf(sessionId: string): Promise<LoggedEvent[]> {
  const { status, body } = await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events?limit=1000`);
  expect(status).toBe(200);
  return body.events as LoggedEvent[];
}

const textOf = (item: AgentInputItem | undefined) => JSON.stringify(item ?? null);

describe("OpenAI Agents SDK: MnemoSession and memoryContextFilter under the SDK's own Runner", () => {
  it("writes every item to the log, feeds the user's context window to the next turn, and reads items back in order", async () => {
    const memory = client();
    const session = new MnemoSession(memory, { userId: "ines", appId: "trips" });
    const model = new ScriptedModel();
    const weather = tool({
      name: "weather_in",
      description: "Today's weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `Sunny in ${city}`,
    });
    const agent = new Agent({ name: "guide", instructions: "You are a travel guide.", model: "scripted", tools: [weather] });
    const runner = runnerWith(model);
    const callModelInputFilter = memoryContextFilter(memory, { userId: "ines", appId: "trips", maxTokens: 800 });

    model.answer(() => says("Noted, no nuts for you in Porto."));
    const first = await runner.run(agent, "I am allergic to hazelnuts and I am flying to Porto in May.", { session, callModelInputFilter });
    expect(first.finalOutput).toBe("Noted, no nuts for you in Porto.");
    const sessionId = await session.getSessionId();
    const stored = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body;
    expect(stored).toMatchObject({ app_id: "trips", user_id: "ines", metadata: { source: "openai-agents" } });
    expect((await logOf(sessionId)).map((event) => `${event.role}: ${event.content}`)).toEqual([
      "user: I am allergic to hazelnuts and I am flying to Porto in May.",
      "assistant: Noted, no nuts for you in Porto.",
    ]);
    // The first turn had nothing to recall yet: the window holds the agent's own instructions.
    expect(model.requests[0]?.instructions).toContain("You are a travel guide.");
    expect(model.requests[0]?.instructions).not.toContain("hazelnut");

    // The pipeline turns the turn into memory; the next turn's window recalls it.
    await waitForSettled(runtime.app, "ines");
    model
      .answer((request) => callsTool("weather_in", { city: JSON.stringify(request.input).includes("Porto") ? "Porto" : "?" }))
      .answer(() => says("Sunny in Porto: try a pastel de nata (no hazelnuts)."));
    const second = await runner.run(agent, "What snack should I try there?", { session, callModelInputFilter });
    expect(second.finalOutput).toBe("Sunny in Porto: try a pastel de nata (no hazelnuts).");
    const turnTwo = model.requests[1];
    expect(turnTwo?.instructions).toContain("You are a travel guide.");
    expect(turnTwo?.instructions).toMatch(/hazelnut/i);
    // The agent's instructions come first, then what memory recalled.
    const window = turnTwo?.instructions ?? "";
    expect(window.indexOf("You are a travel guide.")).toBeLessThan(window.search(/hazelnut/i));
    // The session gave the model the first turn as history, before the new message.
    expect(turnTwo?.input.map((item) => ("role" in item ? item.role : item.type))).toEqual(["user", "assistant", "user"]);
    // The tool loop's second model call got the call and its result from the runner, and the window again.
    expect(model.requests[2]?.input.map((item) => ("role" in item ? item.role : item.type))).toEqual([
      "user",
      "assistant",
      "user",
      "function_call",
      "function_call_result",
    ]);
    expect(model.requests[2]?.instructions).toMatch(/hazelnut/i);

    // Items in log order, exactly as added: tool calls and results as word-less tool events.
    const log = await logOf(sessionId);
    expect(log.map((event) => event.role)).toEqual(["user", "assistant", "user", "tool", "tool", "assistant"]);
    expect(log.filter((event) => event.role === "tool").every((event) => event.content === "")).toBe(true);
    const items = await session.getItems();
    expect(items).toHaveLength(6);
    expect(items.map((item) => ("role" in item ? item.role : item.type))).toEqual([
      "user",
      "assistant",
      "user",
      "function_call",
      "function_call_result",
      "assistant",
    ]);
    expect(items).toEqual(log.map((event) => (event.data as { openai_agents_item: unknown }).openai_agents_item));
    expect(textOf(items[4])).toContain("Sunny in Porto");

    // limit: the last N items, oldest first.
    expect((await session.getItems(2)).map((item) => item.type)).toEqual(["function_call_result", "message"]);
    expect(await session.getItems(0)).toEqual([]);
    expect(await session.getItems(50)).toEqual(items);
    await expect(session.getItems(-1)).rejects.toThrow();

    // A second session object on the same service session (another process) reads the same items.
    expect(await new MnemoSession(memory, { userId: "ines", appId: "trips", sessionId }).getItems()).toEqual(items);
  });

  it("popItem redacts the last item and retracts what was derived from it; clearSession ends the session and starts a new one", async () => {
    const memory = client();
    const session = new MnemoSession(memory, { userId: "olu" });
    const model = new ScriptedModel();
    const agent = new Agent({ name: "coach", instructions: "You are a fitness coach.", model: "scripted" });
    const runner = runnerWith(model);

    model.answer(() => says("Great, see you on Tuesday."));
    await runner.run(agent, "Hello coach, I train on Tuesdays.", { session });
    model.answer(() => says("Noted: locker 317."));
    await runner.run(agent, "Please remember my gym locker is number 317.", { session });
    const sessionId = await session.getSessionId();
    await waitForSettled(runtime.app, "olu");
    const remembered = async () =>
      ((await call(runtime.app, "GET", "/v1/memories?user_id=olu&limit=500")).body.memories as { content: string }[]).filter((row) =>
        row.content.includes("317"),
      );
    expect((await remembered()).length).toBeGreaterThan(0);

    // Pop the answer, then the message: each comes back as it was and its event becomes a tombstone.
    const answer = await session.popItem();
    expect(textOf(answer)).toContain("Noted: locker 317.");
    const question = await session.popItem();
    expect(textOf(question)).toContain("my gym locker is number 317");
    const log = await logOf(sessionId);
    expect(log).toHaveLength(4);
    expect(log.slice(2).map((event) => event.content)).toEqual(["", ""]);
    expect(log.slice(2).every((event) => event.data !== null && "tombstone" in event.data)).toBe(true);
    expect((await session.getItems()).map(textOf).join(" ")).not.toContain("317");
    // limit counts items, not events: the tombstones are skipped.
    expect((await session.getItems(2)).map(textOf)).toEqual([textOf((await session.getItems())[0]), textOf((await session.getItems())[1])]);
    // Everything the pipeline derived from the popped words is re-derived without them or retracted.
    await waitForSettled(runtime.app, "olu");
    expect(await remembered()).toEqual([]);

    // Two pops at once take two different items.
    const [one, two] = await Promise.all([session.popItem(), session.popItem()]);
    expect(new Set([textOf(one), textOf(two)]).size).toBe(2);
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();

    // clearSession: the session ends, the next use is a new session of the same user.
    model.answer(() => says("Tuesday it is."));
    await runner.run(agent, "I now train on Thursdays too.", { session });
    await session.clearSession();
    const ended = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}`)).body;
    expect(ended.ended_at).not.toBeNull();
    expect(await session.getItems()).toEqual([]);
    const next = await session.getSessionId();
    expect(next).not.toBe(sessionId);
    expect((await call(runtime.app, "GET", `/v1/sessions/${next}`)).body).toMatchObject({ user_id: "olu", ended_at: null });
    // The old session's log stays (append-only), and so does what memory learnt from it.
    expect((await logOf(sessionId)).at(-1)?.content).toBe("Tuesday it is.");
    await waitForSettled(runtime.app, "olu");
    const recalled = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "olu", query: "Which days do I train?" });
    expect(JSON.stringify(recalled.body.memories)).toMatch(/Thursdays/);
  });

  it("refuses what is not an item or not an id, before anything reaches the log", async () => {
    const memory = client();
    expect(() => new MnemoSession(memory, { userId: "" })).toThrow(/userId/);
    expect(() => new MnemoSession(memory, { userId: "kai", sessionId: "not-a-uuid" })).toThrow(/sessionId/);
    expect(() => memoryContextFilter(memory, { userId: "kai", maxTokens: 3 })).toThrow(/maxTokens/);
    const session = new MnemoSession(memory, { userId: "kai" });
    await session.addItems([{ role: "user", content: "First words." }]);
    const bogus = [
      { role: "user", content: "ok" },
      { type: "message", role: "boss", content: 42 },
    ] as unknown as AgentInputItem[];
    await expect(session.addItems(bogus)).rejects.toThrow(/not an OpenAI Agents item/);
    // Another user's session is refused, never read or written.
    const theirs = new MnemoSession(memory, { userId: "lee" });
    await theirs.addItems([{ role: "user", content: "Private words." }]);
    const intruder = new MnemoSession(memory, { userId: "kai", sessionId: await theirs.getSessionId() });
    await expect(intruder.getItems()).rejects.toThrow(/not a session of user kai/);
    await expect(intruder.addItems([{ role: "user", content: "Hijack." }])).rejects.toThrow(/not a session of user kai/);
    expect(await theirs.getItems()).toHaveLength(1);
    expect((await session.getItems()).map(textOf)).toEqual([textOf({ role: "user", content: "First words." })]);
  });
});
