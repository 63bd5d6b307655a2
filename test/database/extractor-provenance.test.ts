import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createGeminiLanguageModel } from "../../src/providers/gemini/gemini-language-model.js";
import { EXTRACTION_PROMPT_VERSION, llmExtractor } from "../../src/providers/prompts.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { type RecordedPeer, recorded, startRecordedPeer } from "../fixtures/recorded-http.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

/**
 * The LLM as the extractor, through the API on either database: Gemini's SDK against a local peer
 * in Gemini's wire format, which answers the reflection call by the turns it is shown. Every fact
 * the model writes records the provider, the model and the version of the prompt it was asked
 * with — on the memory, in its history and in the export — and the operation it stated.
 */
let peer: RecordedPeer;
let runtime: Runtime;
const MODEL = "gemini-3.8-flash";

/** The model's answer: a home for each turn that names a city after "to" or "in", stated against the known home. */
function answer(prompt: string): string {
  const known = /- profile:location = "([^"]+)"/.exec(prompt)?.[1];
  const facts = [...prompt.matchAll(/^\[(\d+)\] user: .*\b(?:to|in) (\p{Lu}\p{L}+)/gmu)].map((match) => ({
    type: "profile",
    key: "profile:location",
    value: match[2],
    content: `User lives in ${match[2]}.`,
    confidence: 0.9,
    operation: known ? "UPDATE" : "ADD",
    replaces_key: null,
    source_seqs: [Number(match[1])],
  }));
  const text = JSON.stringify({ facts, insights: [], traits: [], entities: [], relations: [] });
  return JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }] });
}

beforeAll(async () => {
  peer = await startRecordedPeer();
  peer.reply = (request) => {
    const json = request.body?.generationConfig?.responseMimeType === "application/json";
    return { status: 200, body: json ? answer(request.body.contents[0].parts[0].text as string) : recorded("gemini", "generate-content") };
  };
  const llm = createGeminiLanguageModel({ apiKey: "test-key", model: MODEL, baseUrl: peer.baseUrl });
  runtime = await startTestRuntime({}, { providers: { llm } });
});
afterAll(async () => {
  await runtime?.close();
  await peer?.close();
});

const { session, factNamed } = factSessions(() => runtime);

describe("facts written by an LLM say which model and prompt wrote them", () => {
  it("on the memory, in its history and in the export, with the operation the model stated", async () => {
    await session("lea", 10, ["I moved to Antwerp."]);
    await session("lea", 40, ["We just moved to Utrecht."]);
    const expected = {
      name: "gemini",
      model: MODEL,
      prompt_version: EXTRACTION_PROMPT_VERSION,
      version: `${MODEL} prompt ${EXTRACTION_PROMPT_VERSION}`,
    };
    expect(llmExtractor("gemini", MODEL)).toEqual(expected);
    expect(EXTRACTION_PROMPT_VERSION).toMatch(/^[0-9a-f]{12}$/);

    const utrecht = await factNamed("lea", "User lives in Utrecht.");
    expect((await call(runtime.app, "GET", `/v1/memories/${utrecht.id}`)).body.metadata.extractor).toEqual(expected);
    const history = (await call(runtime.app, "GET", `/v1/memories/${utrecht.id}/history`)).body.history;
    expect(history[0]).toMatchObject({ operation: "ADD", after: { extractor: expected, stated_operation: "UPDATE" } });
    const antwerp = await factNamed("lea", "User lives in Antwerp.");
    const superseded = (await call(runtime.app, "GET", `/v1/memories/${antwerp.id}/history`)).body.history;
    expect(superseded.map((entry: { operation: string }) => entry.operation)).toEqual(["ADD", "SUPERSEDE"]);
    expect(superseded[1]).toMatchObject({ after: { extractor: expected, stated_operation: "UPDATE" } });

    const exported = (await (await runtime.app.request("/v1/users/lea/export")).text())
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const facts = exported.filter((record) => record.kind === "memory" && record.type === "semantic");
    expect(facts.map((record) => record.metadata.extractor)).toEqual([expected, expected]);
  });
});
