import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIEmbedder } from "../../src/providers/openai-compatible/openai-embedder.js";
import { createOpenAILanguageModel } from "../../src/providers/openai-compatible/openai-language-model.js";
import { EXTRACTION_PROMPT_VERSION, llmExtractor } from "../../src/providers/prompts.js";
import { ProviderError } from "../../src/providers/types.js";
import { type RecordedPeer, recorded, startRecordedPeer } from "../fixtures/recorded-http.js";

/**
 * The OpenAI-compatible providers (the official `openai` package) against a local peer answering
 * in the chat-completions and embeddings wire format that OpenAI, Ollama, vLLM and llama.cpp share
 * (responses under test/fixtures/openai).
 */
let peer: RecordedPeer;
beforeAll(async () => {
  peer = await startRecordedPeer();
});
afterAll(() => peer.close());
beforeEach(() => {
  peer.requests.length = 0;
});

const local = () => ({ baseUrl: `${peer.baseUrl}/v1`, model: "llama3.2:3b" });
const completion = (content: string) => {
  const body = JSON.parse(recorded("openai", "chat-completion"));
  body.choices[0].message.content = content;
  return JSON.stringify(body);
};
const summarize = (llm = createOpenAILanguageModel(local())) =>
  llm.summarize({ turns: [{ role: "user", content: "hi there you" }], maxWords: 50 });

describe("OpenAI-compatible language model", () => {
  it("sends the fast-replay prompt to /chat/completions and returns the summary", async () => {
    peer.reply = () => ({ status: 200, body: recorded("openai", "chat-completion") });
    const llm = createOpenAILanguageModel({ ...local(), apiKey: "sk-local" });
    const summary = await llm.summarize({ turns: [{ role: "user", content: "I moved to Lisbon for a design job." }], maxWords: 200 });
    expect(summary.text).toBe("The user moved to Lisbon for a design job and decided to buy a cargo bike instead of a car.");
    const [request] = peer.requests;
    expect(request?.url).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-local");
    expect(request?.body).toMatchObject({ model: "llama3.2:3b", temperature: 0.2 });
    expect(request?.body.messages[0].content).toContain("user: I moved to Lisbon for a design job.");
    expect(llm.id).toBe(`openai-compatible:${new URL(peer.baseUrl).host}/llama3.2:3b`);
  });

  it("constrains extraction by a strict JSON schema and shows the known facts", async () => {
    const answer = {
      facts: [
        {
          type: "profile",
          key: "profile:location",
          value: "Porto",
          content: "User lives in Porto.",
          confidence: 0.9,
          operation: "ADD",
          replaces_key: null,
          source_seqs: [3],
        },
      ],
      insights: [],
      traits: [],
    };
    peer.reply = () => ({ status: 200, body: completion(JSON.stringify(answer)) });
    const extraction = await createOpenAILanguageModel(local()).extract({
      turns: [{ role: "user", content: "We moved to Porto last month.", seq: 3 }],
      knownFacts: [{ key: "profile:location", value: "Lisbon", content: "User lives in Lisbon." }],
    });
    expect(extraction.facts[0]).toMatchObject({ key: "profile:location", value: "Porto", source_seqs: [3] });
    // The facts record the server, the model and the prompt's version they were read with.
    expect(extraction.extractor).toEqual(llmExtractor("openai-compatible", `${new URL(peer.baseUrl).host}/llama3.2:3b`));
    expect(extraction.extractor.prompt_version).toBe(EXTRACTION_PROMPT_VERSION);
    const body = peer.requests[0]?.body;
    expect(body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "extraction", strict: true } });
    // Strict mode's rules: every property required, nothing else allowed.
    const fact = body.response_format.json_schema.schema.properties.facts.items;
    expect(fact.additionalProperties).toBe(false);
    expect([...fact.required].sort()).toEqual(Object.keys(fact.properties).sort());
    expect(body.messages[0].content).toContain('- profile:location = "Lisbon" (User lives in Lisbon.)');
  });

  it("falls back to JSON mode or the prompt alone for servers without JSON schemas", async () => {
    peer.reply = () => ({ status: 200, body: completion('```json\n{"facts": [], "insights": [], "traits": []}\n```') });
    const turns = [{ role: "user", content: "Hello.", seq: 1 }];
    await createOpenAILanguageModel({ ...local(), responseFormat: "json_object" }).extract({ turns });
    await createOpenAILanguageModel({ ...local(), responseFormat: "text" }).extract({ turns });
    expect(peer.requests[0]?.body.response_format).toEqual({ type: "json_object" });
    expect(peer.requests[1]?.body.response_format).toBeUndefined();
  });

  it("maps failures: 429 retryable with retry-after-ms, unknown model not, refused connection and timeout retryable, garbage retryable", async () => {
    peer.reply = () => ({ status: 429, body: recorded("openai", "rate-limited"), headers: { "retry-after-ms": "120" } });
    const limited = await summarize().catch((caught: unknown) => caught);
    expect(limited).toBeInstanceOf(ProviderError);
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 120 });
    peer.reply = () => ({ status: 404, body: recorded("openai", "model-not-found") });
    await expect(summarize()).rejects.toMatchObject({ retryable: false, message: expect.stringContaining("not found") });
    peer.reply = () => ({ status: 503, body: "{}", headers: { "retry-after": "2" } });
    await expect(summarize()).rejects.toMatchObject({ retryable: true, retryAfterMs: 2_000 });
    await expect(summarize(createOpenAILanguageModel({ baseUrl: "http://127.0.0.1:9/v1", model: "m" }))).rejects.toMatchObject({
      retryable: true,
    });
    peer.reply = () => ({ status: 200, body: recorded("openai", "chat-completion"), delayMs: 2_000 });
    await expect(summarize(createOpenAILanguageModel({ ...local(), timeoutMs: 200 }))).rejects.toMatchObject({ retryable: true });
    peer.reply = () => ({ status: 200, body: completion("Sure! Here are the facts: none.") });
    await expect(createOpenAILanguageModel(local()).extract({ turns: [{ role: "user", content: "Hi.", seq: 1 }] })).rejects.toMatchObject({
      retryable: true,
    });
  });
});

describe("OpenAI-compatible embedder", () => {
  it("orders vectors by index, learns the size from the first answer and holds the model to it", async () => {
    peer.reply = () => ({ status: 200, body: recorded("openai", "embeddings") });
    const embedder = createOpenAIEmbedder({ baseUrl: `${peer.baseUrl}/v1`, model: "nomic-embed-text" });
    expect(await embedder.embed(["first", "second"])).toEqual([
      [0.125, 0.5, -0.25],
      [0.25, -0.5, 0.75],
    ]);
    expect(embedder.dimensions).toBe(3);
    expect(peer.requests[0]?.url).toBe("/v1/embeddings");
    expect(peer.requests[0]?.body).toEqual({ model: "nomic-embed-text", input: ["first", "second"], encoding_format: "float" });
    peer.reply = () => ({ status: 200, body: JSON.stringify({ object: "list", data: [{ index: 0, embedding: [1, 2] }], model: "x" }) });
    await expect(embedder.embed(["third"])).rejects.toMatchObject({ retryable: false });
  });

  it("waits out a 429's retry-after with every request held back, then sends the batch again", async () => {
    let rateLimited = 1;
    const sentAt: number[] = [];
    peer.reply = (request) => {
      sentAt.push(performance.now());
      if (rateLimited-- > 0) return { status: 429, body: recorded("openai", "rate-limited"), headers: { "retry-after-ms": "300" } };
      const data = (request.body.input as string[]).map((text, index) => ({ index, embedding: [text.length, 1, 0] }));
      return { status: 200, body: JSON.stringify({ object: "list", data, model: "x" }) };
    };
    const embedder = createOpenAIEmbedder({ baseUrl: `${peer.baseUrl}/v1`, model: "nomic-embed-text", concurrency: 1 });
    const first = embedder.embed(["aaaa"]);
    // Sent while the first is out: it waits for the pause and leaves with the batch sent again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = embedder.embed(["bb"]);
    expect(await Promise.all([first, second])).toEqual([[[4, 1, 0]], [[2, 1, 0]]]);
    expect(peer.requests.map((request) => request.body.input)).toEqual([["aaaa"], ["aaaa", "bb"]]);
    expect((sentAt[1] as number) - (sentAt[0] as number)).toBeGreaterThanOrEqual(290);
  });

  it("fails a query at once when a 429 asks for longer than a query waits", async () => {
    peer.reply = () => ({ status: 429, body: recorded("openai", "rate-limited"), headers: { "retry-after": "30" } });
    const embedder = createOpenAIEmbedder({ baseUrl: `${peer.baseUrl}/v1`, model: "nomic-embed-text" });
    const started = performance.now();
    await expect(embedder.embed(["where?"], { priority: "query" })).rejects.toMatchObject({ rateLimited: true, retryAfterMs: 30_000 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(peer.requests).toHaveLength(1);
  });

  it("asks for the configured size and names it in the model id", async () => {
    peer.reply = () => ({ status: 200, body: recorded("openai", "embeddings") });
    const embedder = createOpenAIEmbedder({
      apiKey: "sk-test",
      model: "text-embedding-3-small",
      dimensions: 3,
      baseUrl: `${peer.baseUrl}/v1`,
    });
    await embedder.embed(["first", "second"]);
    expect(peer.requests[0]?.body.dimensions).toBe(3);
    expect(embedder.model).toBe(`openai-compatible:${new URL(peer.baseUrl).host}/text-embedding-3-small@3`);
  });
});
