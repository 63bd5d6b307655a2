import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelExtractionSchema } from "../../src/providers/extraction-output.js";
import { createGeminiEmbedder } from "../../src/providers/gemini/gemini-embedder.js";
import { createGeminiLanguageModel } from "../../src/providers/gemini/gemini-language-model.js";
import { llmExtractor } from "../../src/providers/prompts.js";
import { ProviderError } from "../../src/providers/types.js";
import { type RecordedPeer, recorded, startRecordedPeer } from "../fixtures/recorded-http.js";

/**
 * The Gemini providers (`@google/genai`) against a local peer answering in the wire format of the
 * Gemini API (responses under test/fixtures/gemini).
 */
let peer: RecordedPeer;
beforeAll(async () => {
  peer = await startRecordedPeer();
});
afterAll(() => peer.close());
beforeEach(() => {
  peer.requests.length = 0;
});

const model = (extra: { thinkingLevel?: "low"; timeoutMs?: number } = {}) =>
  createGeminiLanguageModel({ apiKey: "test-key", model: "gemini-3.8-flash", baseUrl: peer.baseUrl, ...extra });
const summarize = (llm = model()) => llm.summarize({ turns: [{ role: "user", content: "hi there you" }], maxWords: 50 });

describe("Gemini language model", () => {
  it("sends the fast-replay prompt and returns the model's summary", async () => {
    peer.reply = () => ({ status: 200, body: recorded("gemini", "generate-content") });
    const summary = await model({ thinkingLevel: "low" }).summarize({
      turns: [
        { role: "user", content: "I moved to Lisbon for a design job." },
        { role: "user", content: "I decided to buy a cargo bike instead of a car." },
      ],
      maxWords: 200,
    });
    expect(summary).toEqual({ text: "The user moved to Lisbon for a design job and decided to buy a cargo bike instead of a car." });
    const [request] = peer.requests;
    expect(request?.url).toMatch(/\/models\/gemini-3\.8-flash:generateContent$/);
    expect(request?.headers["x-goog-api-key"]).toBe("test-key");
    expect(request?.body.generationConfig).toMatchObject({ temperature: 0.2, thinkingConfig: { thinkingLevel: "LOW" } });
    const prompt = request?.body.contents[0].parts[0].text as string;
    expect(prompt).toContain("user: I decided to buy a cargo bike instead of a car.");
    expect(prompt).toContain("At most 200 words.");
    expect(prompt).toContain("third person");
  });

  it("reports a 429 as retryable with the server's retry delay", async () => {
    peer.reply = () => ({ status: 429, body: recorded("gemini", "rate-limited") });
    const error = await summarize().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 17_000 });
  });

  it("reports a 400 as not retryable, a 500 and a timeout as retryable", async () => {
    peer.reply = () => ({ status: 400, body: recorded("gemini", "invalid-argument") });
    await expect(summarize()).rejects.toMatchObject({ retryable: false });
    peer.reply = () => ({ status: 500, body: JSON.stringify({ error: { code: 500, message: "Internal error", status: "INTERNAL" } }) });
    await expect(summarize()).rejects.toMatchObject({ retryable: true });
    peer.reply = () => ({ status: 200, body: recorded("gemini", "generate-content"), delayMs: 2_000 });
    await expect(summarize(model({ timeoutMs: 200 }))).rejects.toMatchObject({ retryable: true });
  });

  it("treats an answer without text as a failure: retryable unless the prompt was blocked", async () => {
    peer.reply = () => ({ status: 200, body: JSON.stringify({ candidates: [{ finishReason: "MAX_TOKENS", index: 0 }] }) });
    await expect(summarize()).rejects.toMatchObject({ retryable: true, message: expect.stringContaining("MAX_TOKENS") });
    peer.reply = () => ({ status: 200, body: JSON.stringify({ promptFeedback: { blockReason: "SAFETY" } }) });
    await expect(summarize()).rejects.toMatchObject({ retryable: false, message: expect.stringContaining("SAFETY") });
  });
});

describe("Gemini extraction", () => {
  const wrap = (text: string) =>
    JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }] });

  it("constrains the answer by the response schema, shows the user's known facts, cites sequence numbers", async () => {
    const answer = {
      facts: [
        {
          type: "preference",
          key: "attitude:cats",
          value: "loves",
          content: "User loves cats.",
          confidence: 0.9,
          operation: "ADD",
          replaces_key: null,
          source_seqs: [7],
        },
      ],
      insights: [],
      traits: [],
      entities: [{ name: "Maya", kind: "person", aliases: [], summary: "The user's daughter.", renamed_from: null, source_seqs: [7] }],
      relations: [
        {
          subject: "user",
          predicate: "Daughter",
          object: "Maya",
          content: "Maya is the user's daughter.",
          confidence: 0.9,
          operation: "ADD",
          source_seqs: [7],
        },
      ],
    };
    expect(ModelExtractionSchema.safeParse(answer).success).toBe(true);
    peer.reply = () => ({ status: 200, body: wrap(JSON.stringify(answer)) });
    const extraction = await model().extract({
      turns: [{ role: "user", content: "I love newts.", seq: 7 }],
      knownFacts: [{ key: "profile:location", value: "Lisbon", content: "User lives in Lisbon." }],
    });
    expect(extraction.facts[0]).toMatchObject({ key: "attitude:cats", source_seqs: [7], operation: "ADD" });
    expect(extraction.extractor).toEqual(llmExtractor("gemini", "gemini-3.8-flash"));
    // The entity graph comes back validated: the predicate normalised, the entity with its kind.
    expect(extraction.entities).toEqual([expect.objectContaining({ name: "Maya", kind: "person", source_seqs: [7] })]);
    expect(extraction.relations).toEqual([expect.objectContaining({ subject: "user", predicate: "daughter", object: "Maya" })]);
    const body = peer.requests[0]?.body;
    expect(body.generationConfig).toMatchObject({ responseMimeType: "application/json", temperature: 0 });
    expect(body.generationConfig.responseJsonSchema.properties.facts.items.required).toContain("replaces_key");
    expect(body.generationConfig.responseJsonSchema.properties.relations.items.required).toContain("operation");
    const prompt = body.contents[0].parts[0].text as string;
    expect(prompt).toContain("[7] user: I love newts.");
    expect(prompt).toContain('- profile:location = "Lisbon" (User lives in Lisbon.)');
  });

  it("reports malformed output as a retryable error instead of a partial result", async () => {
    peer.reply = () => ({ status: 200, body: wrap('{"facts": [{"type": "preference"') });
    await expect(model().extract({ turns: [{ role: "user", content: "I love newts.", seq: 1 }] })).rejects.toMatchObject({
      retryable: true,
    });
  });
});

describe("Gemini embedder", () => {
  it("embeds in batches of at most 100 at the configured size and keeps the order", async () => {
    peer.reply = (request) => ({
      status: 200,
      body: JSON.stringify({
        embeddings: request.body.requests.map((entry: { content: { parts: { text: string }[] } }) => ({
          values: [Number(entry.content.parts[0]?.text.split(" ")[1]), 0.5, -0.5],
        })),
      }),
    });
    const embedder = createGeminiEmbedder({ apiKey: "test-key", model: "gemini-embedding-001", baseUrl: peer.baseUrl, dimensions: 3 });
    const texts = Array.from({ length: 150 }, (_, i) => `text ${i}`);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(150);
    expect(vectors.map((vector) => vector[0])).toEqual(texts.map((_, i) => i));
    // Two batches, sent at once.
    expect(peer.requests.map((request) => request.body.requests.length).sort((a, b) => b - a)).toEqual([100, 50]);
    expect(peer.requests[0]?.url).toMatch(/\/models\/gemini-embedding-001:batchEmbedContents$/);
    expect(peer.requests[0]?.body.requests[0]).toMatchObject({
      model: "models/gemini-embedding-001",
      taskType: "RETRIEVAL_DOCUMENT",
      outputDimensionality: 3,
    });
    expect(embedder.model).toBe("gemini:gemini-embedding-001@3");
  });

  it("embeds a query as a retrieval query, and fails it at once on a 429 that asks for 17 s", async () => {
    peer.reply = () => ({ status: 200, body: JSON.stringify({ embeddings: [{ values: [1, 0, 0] }] }) });
    const embedder = createGeminiEmbedder({ apiKey: "test-key", model: "gemini-embedding-001", baseUrl: peer.baseUrl, dimensions: 3 });
    expect(await embedder.embed(["where does ana live?"], { priority: "query" })).toEqual([[1, 0, 0]]);
    expect(peer.requests[0]?.body.requests[0]).toMatchObject({ taskType: "RETRIEVAL_QUERY" });
    peer.reply = () => ({ status: 429, body: recorded("gemini", "rate-limited") });
    await expect(embedder.embed(["and now?"], { priority: "query" })).rejects.toMatchObject({ rateLimited: true, retryAfterMs: 17_000 });
    expect(peer.requests).toHaveLength(2);
  });

  it("refuses vectors of another size for good, and a short answer as retryable garbage", async () => {
    const embedder = createGeminiEmbedder({ apiKey: "test-key", model: "gemini-embedding-001", baseUrl: peer.baseUrl, dimensions: 3 });
    peer.reply = () => ({ status: 200, body: JSON.stringify({ embeddings: [{ values: [1, 2, 3, 4] }] }) });
    await expect(embedder.embed(["one"])).rejects.toMatchObject({ retryable: false });
    peer.reply = () => ({ status: 200, body: JSON.stringify({ embeddings: [] }) });
    await expect(embedder.embed(["one"])).rejects.toMatchObject({ retryable: true });
  });
});
