import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGeminiEmbedder } from "../../src/providers/gemini/gemini-embedder.js";
import { createGeminiLanguageModel } from "../../src/providers/gemini/gemini-language-model.js";
import { ProviderError } from "../../src/providers/types.js";

/**
 * The Gemini providers against a local HTTP server that answers with responses in the wire
 * format of the Generative Language API (fixtures under test/fixtures/gemini). The SDK, its
 * request building and its error parsing all run for real; only the network peer is local.
 */
const fixture = (name: string) => readFileSync(new URL(`../fixtures/gemini/${name}.json`, import.meta.url), "utf8");

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: any;
}
let server: Server;
let baseUrl: string;
let requests: Recorded[] = [];
let reply: (request: Recorded) => { status: number; body: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: raw ? JSON.parse(raw) : null };
      requests.push(recorded);
      const { status, body } = reply(recorded);
      res.writeHead(status, { "content-type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests = [];
});

describe("Gemini language model", () => {
  it("sends the fast-replay prompt and returns the model's summary", async () => {
    reply = () => ({ status: 200, body: fixture("generate-content") });
    const llm = createGeminiLanguageModel({ apiKey: "test-key", model: "gemini-2.0-flash", baseUrl });
    const summary = await llm.summarize({
      turns: [
        { role: "user", content: "I moved to Lisbon for a design job." },
        { role: "user", content: "I decided to buy a cargo bike instead of a car." },
      ],
      maxWords: 200,
    });
    expect(summary).toEqual({ text: "The user moved to Lisbon for a design job and decided to buy a cargo bike instead of a car." });
    const [request] = requests;
    expect(request?.url).toMatch(/\/models\/gemini-2\.0-flash:generateContent$/);
    expect(request?.headers["x-goog-api-key"]).toBe("test-key");
    const prompt = request?.body.contents[0].parts[0].text as string;
    expect(prompt).toContain("user: I decided to buy a cargo bike instead of a car.");
    expect(prompt).toContain("At most 200 words.");
    expect(prompt).toContain("third person");
  });

  it("reports a 429 as retryable with the server's retry delay", async () => {
    reply = () => ({ status: 429, body: fixture("rate-limited") });
    const llm = createGeminiLanguageModel({ apiKey: "test-key", model: "gemini-2.0-flash", baseUrl });
    const error = await llm
      .summarize({ turns: [{ role: "user", content: "hi there you" }], maxWords: 50 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 17_000 });
  });

  it("reports a 400 as not retryable", async () => {
    reply = () => ({ status: 400, body: fixture("invalid-argument") });
    const llm = createGeminiLanguageModel({ apiKey: "bad-key", model: "gemini-2.0-flash", baseUrl });
    await expect(llm.summarize({ turns: [{ role: "user", content: "hi there you" }], maxWords: 50 })).rejects.toMatchObject({
      retryable: false,
    });
  });

  it("reports a 500 as retryable", async () => {
    reply = () => ({ status: 500, body: JSON.stringify({ error: { code: 500, message: "Internal error", status: "INTERNAL" } }) });
    const llm = createGeminiLanguageModel({ apiKey: "test-key", model: "gemini-2.0-flash", baseUrl });
    await expect(llm.summarize({ turns: [{ role: "user", content: "hi there you" }], maxWords: 50 })).rejects.toMatchObject({
      retryable: true,
    });
  });
});

describe("Gemini extraction", () => {
  const wrap = (text: string) =>
    JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }] });

  it("asks for JSON, cites sequence numbers, and validates the answer", async () => {
    const answer = {
      facts: [
        {
          type: "preference",
          key: "attitude:cats",
          value: { polarity: 1 },
          content: "User loves cats.",
          confidence: 0.9,
          source_seqs: [7],
        },
      ],
      insights: [],
      traits: [],
    };
    reply = () => ({ status: 200, body: wrap(`\`\`\`json\n${JSON.stringify(answer)}\n\`\`\``) });
    const llm = createGeminiLanguageModel({ apiKey: "test-key", model: "gemini-2.0-flash", baseUrl });
    const extraction = await llm.extract({ turns: [{ role: "user", content: "I love cats.", seq: 7 }] });
    expect(extraction.facts[0]).toMatchObject({ key: "attitude:cats", source_seqs: [7], operation: "ADD" });
    const body = requests[0]?.body;
    expect(body.generationConfig).toMatchObject({ responseMimeType: "application/json", temperature: 0 });
    expect(body.contents[0].parts[0].text).toContain("[7] user: I love cats.");
  });

  it("reports malformed output as a retryable error instead of a partial result", async () => {
    reply = () => ({ status: 200, body: wrap('{"facts": [{"type": "preference"') });
    const llm = createGeminiLanguageModel({ apiKey: "test-key", model: "gemini-2.0-flash", baseUrl });
    await expect(llm.extract({ turns: [{ role: "user", content: "I love cats.", seq: 1 }] })).rejects.toMatchObject({ retryable: true });
  });
});

describe("Gemini embedder", () => {
  it("embeds in batches of at most 100 and keeps the order", async () => {
    reply = (request) => ({
      status: 200,
      body: JSON.stringify({
        embeddings: request.body.requests.map((entry: { content: { parts: { text: string }[] } }) => ({
          values: [Number(entry.content.parts[0]?.text.split(" ")[1]), 0.5, -0.5],
        })),
      }),
    });
    const embedder = createGeminiEmbedder({ apiKey: "test-key", model: "text-embedding-004", baseUrl, dimensions: 3 });
    const texts = Array.from({ length: 150 }, (_, i) => `text ${i}`);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(150);
    expect(vectors.map((vector) => vector[0])).toEqual(texts.map((_, i) => i));
    expect(requests.map((request) => request.body.requests.length)).toEqual([100, 50]);
    expect(requests[0]?.url).toMatch(/\/models\/text-embedding-004:batchEmbedContents$/);
    expect(requests[0]?.body.requests[0]).toMatchObject({ model: "models/text-embedding-004", taskType: "RETRIEVAL_DOCUMENT" });
    expect(embedder.model).toBe("gemini:text-embedding-004");
  });
});
