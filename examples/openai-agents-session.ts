import { Agent, Runner } from "@openai/agents";
import { memoryContextFilter } from "../integrations/openai-agents/context-filter.js";
import { MnemoSession } from "../integrations/openai-agents/session.js";
import { startInProcess } from "./in-process.js";
import { ScriptedModel, says } from "./scripted-agents-model.js";

/**
 * `npx tsx examples/openai-agents-session.ts`: an OpenAI Agents SDK agent whose conversation is kept
 * in the event log (`MnemoSession`) and whose instructions carry the user's context window each turn
 * (`memoryContextFilter`). The model is scripted so the example runs offline; it answers from what
 * the window told it. With a real model, give the agent a model name and drop `modelProvider`.
 * Exits non-zero when a step does not do what it says.
 */
function check(holds: boolean, step: string): void {
  if (!holds) throw new Error(`step failed: ${step}`);
  console.log(`ok: ${step}`);
}

const { runtime, client, settled } = await startInProcess();
try {
  const model = new ScriptedModel();
  const runner = new Runner({ modelProvider: model.provider(), tracingDisabled: true });
  const agent = new Agent({ name: "chef", instructions: "You are a personal chef.", model: "scripted" });
  const session = new MnemoSession(client, { userId: "mara" });
  const callModelInputFilter = memoryContextFilter(client, { userId: "mara", maxTokens: 600 });

  model.answer(() => says("Noted: a vegan menu, nothing with mushrooms."));
  await runner.run(agent, "I am vegan and I cannot stand mushrooms.", { session, callModelInputFilter });
  check((await session.getItems()).length === 2, "turn 1: the user's message and the answer are two events of the log");

  await settled("mara");
  model.answer((request) => {
    const window = request.systemInstructions ?? "";
    return says(/vegan/i.test(window) ? "A chickpea curry, vegan and without mushrooms." : "What do you like to eat?");
  });
  const second = await runner.run(agent, "What should I cook for dinner?", { session, callModelInputFilter });
  console.log(`instructions the model got on turn 2:\n${model.requests[1]?.instructions}`);
  check(second.finalOutput === "A chickpea curry, vegan and without mushrooms.", "turn 2: the context window recalled turn 1");

  const lastTwo = await session.getItems(2);
  check(lastTwo.length === 2 && JSON.stringify(lastTwo).includes("chickpea"), "getItems(2): the last two items, oldest first");

  const popped = await session.popItem();
  check(JSON.stringify(popped).includes("chickpea"), "popItem: the answer is redacted from the log and returned");
  check((await session.getItems()).length === 3, "after popItem: three items remain");

  const before = await session.getSessionId();
  await session.clearSession();
  const after = await session.getSessionId();
  check(before !== after && (await session.getItems()).length === 0, "clearSession: the session ended, a new one began");
  console.log(`session ${before} ended; now ${after}`);
} finally {
  await runtime.close();
}
