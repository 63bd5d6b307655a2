import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { type Recorded, type RecordedPeer, startRecordedPeer } from "../fixtures/recorded-http.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * Deep reflection on Gemini and on an OpenAI-compatible server (recorded HTTP): the extraction prompt carries the user's current facts,
 * a model that reuses a key supersedes the old value, and a model that names a new key for a known
 * attribute — on its own, or with `replaces_key` — still ends with one current fact per attribute.
 */
let peer: RecordedPeer;
let runtime: Runtime;
const prompts: string[] = [];

interface ScriptedFact {
  key: string;
  value: string;
  content: string;
  replaces_key?: string;
  /** ADD unless the model would say otherwise against what it was shown. */
  operation?: "UPDATE" | "NOOP";
}
/** What the "model" extracts from each user turn, by the turn's words. */
const SCRIPT: [RegExp, ScriptedFact][] = [
  [/I live in Lisbon and teach/, { key: "profile:location", value: "Lisbon", content: "User lives in Lisbon." }],
  [/I live in Lisbon and teach/, { key: "profile:occupation", value: "teacher", content: "User works as a teacher." }],
  [/moved to Porto/, { key: "profile:location", value: "Porto", content: "User lives in Porto.", operation: "UPDATE" }],
  [/still in Porto/, { key: "profile:location", value: "Porto", content: "User lives in Porto.", operation: "NOOP" }],
  [/relocated to Madrid/, { key: "profile:city", value: "Madrid", content: "User lives in Madrid." }],
  [
    /started as a nurse/,
    { key: "profile:current_role_title", value: "nurse", content: "User works as a nurse.", replaces_key: "profile:occupation" },
  ],
];

/** Both wire formats: Gemini's generateContent and the OpenAI-compatible chat completions. */
function answer(request: Recorded): { status: number; body: string } {
  const openAI = request.url.endsWith("/chat/completions");
  const prompt = (openAI ? request.body.messages[0].content : request.body.contents[0].parts[0].text) as string;
  const extracting = openAI
    ? request.body.response_format !== undefined
    : request.body.generationConfig?.responseMimeType === "application/json";
  const wrap = (text: string) =>
    JSON.stringify(
      openAI
        ? {
            id: "c",
            object: "chat.completion",
            created: 0,
            model: "m",
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
          }
        : { candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }] },
    );
  if (!extracting) return { status: 200, body: wrap("The user talked about home and work.") };
  prompts.push(prompt);
  const facts = [...prompt.matchAll(/^\[(\d+)\] user: (.*)$/gm)].flatMap(([, seq, text]) =>
    SCRIPT.filter(([pattern]) => pattern.test(text ?? "")).map(([, fact]) => ({
      type: "profile",
      confidence: 0.9,
      operation: "ADD",
      replaces_key: null,
      ...fact,
      source_seqs: [Number(seq)],
    })),
  );
  return { status: 200, body: wrap(JSON.stringify({ facts, insights: [], traits: [] })) };
}

const PROVIDERS = {
  gemini: (baseUrl: string) => ({ LLM_PROVIDER: "gemini", GEMINI_API_KEY: "test-key", GEMINI_BASE_URL: baseUrl }),
  openai: (baseUrl: string) => ({ LLM_PROVIDER: "openai", OPENAI_BASE_URL: `${baseUrl}/v1`, OPENAI_MODEL: "llama3.2:3b" }),
};

async function say(text: string): Promise<void> {
  const sessionId = await createSession(runtime.app, "ines");
  expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", text)] })).status).toBe(201);
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  await waitForSettled(runtime.app, "ines");
}

const currentFacts = async () =>
  (await call(runtime.app, "GET", "/v1/memories?user_id=ines&type=semantic&limit=50")).body.memories as {
    id: string;
    key: string;
    value: unknown;
    metadata: Record<string, unknown>;
  }[];

describe.each(Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[])("LLM extraction with stable keys (%s)", (provider) => {
  beforeAll(async () => {
    prompts.length = 0;
    peer = await startRecordedPeer();
    peer.reply = answer;
    runtime = await startTestRuntime(PROVIDERS[provider](peer.baseUrl));
  }, 120_000);
  afterAll(async () => {
    await runtime?.close();
    await peer?.close();
  });

  it("shows the model the user's current facts, and a reused key supersedes the old value", async () => {
    await say("I live in Lisbon and teach at a primary school.");
    expect(prompts.at(-1)).toContain("(none yet)");
    await say("We moved to Porto in the spring.");
    expect(prompts.at(-1)).toContain('- profile:location = "Lisbon" (User lives in Lisbon.)');
    expect(prompts.at(-1)).toContain('- profile:occupation = "teacher" (User works as a teacher.)');
    const location = (await currentFacts()).filter((fact) => fact.key === "profile:location");
    expect(location.map((fact) => fact.value)).toEqual(["Porto"]);
    const history = (await call(runtime.app, "GET", `/v1/memories/${location[0]?.id}/history`)).body.history as { operation: string }[];
    expect(history.map((entry) => entry.operation)).toContain("ADD");
    const all = (await call(runtime.app, "GET", "/v1/memories?user_id=ines&type=semantic&key=profile:location&include_expired=true")).body
      .memories as { value: unknown; superseded_by: string | null }[];
    expect(all.find((fact) => fact.value === "Lisbon")?.superseded_by).toBe(location[0]?.id);
  });

  it("writes nothing new for a NOOP, and adds the turn that restated the fact to its sources", async () => {
    const [before] = (await currentFacts()).filter((fact) => fact.key === "profile:location");
    await say("Yes, we are still in Porto.");
    const after = (await currentFacts()).filter((fact) => fact.key === "profile:location");
    expect(after.map((fact) => fact.id)).toEqual([before?.id]);
    const read = (await call(runtime.app, "GET", `/v1/memories/${before?.id}`)).body as { sources: unknown[] };
    expect(read.sources).toHaveLength(2);
  });

  it("catches a new key for a known attribute: profile:city supersedes profile:location", async () => {
    await say("I relocated to Madrid for the new job.");
    const facts = await currentFacts();
    expect(facts.filter((fact) => /lives in/.test(JSON.stringify(fact)))).toHaveLength(1);
    expect(facts.find((fact) => fact.key === "profile:location")?.value).toBe("Madrid");
    expect(facts.some((fact) => fact.key === "profile:city")).toBe(false);
    // The memory and its history say why it sits under another key than the model named.
    const madrid = facts.find((fact) => fact.key === "profile:location") as { id: string; metadata: Record<string, unknown> };
    expect(madrid.metadata["key_note"]).toBe("extracted as profile:city, the same attribute as profile:location");
    const history = (await call(runtime.app, "GET", `/v1/memories/${madrid.id}/history`)).body.history as { reason: string }[];
    expect(history[0]?.reason).toMatch(/^supersedes .* \(extracted as profile:city, the same attribute as profile:location\)$/);
  });

  it("follows replaces_key: a model's new key for the job still ends the old one", async () => {
    await say("Last week I started as a nurse at the clinic.");
    const occupation = (await currentFacts()).filter((fact) => /occupation|role/.test(fact.key));
    expect(occupation).toEqual([expect.objectContaining({ key: "profile:occupation", value: "nurse" })]);
  });
});
