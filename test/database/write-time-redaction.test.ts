import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { createHashingEmbedder } from "../../src/providers/offline/hashing-embedder.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import type { Embedder, LanguageModel } from "../../src/providers/types.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";
import { findTraces } from "../fixtures/trace-scan.js";

// What a user might paste into a chat; each must never be stored or sent anywhere.
const EMAIL = "priya.raman@example.org";
const PHONE = "+44 20 7946 0958";
const CARD = "4111 1111 1111 1111";
const SECRET = "sk-proj-Zx8Qw2Er4Ty6Ui8Op0As2Df4";
const DETECTED = [EMAIL, PHONE, CARD, SECRET, "7946 0958", "4111111111111111", "Zx8Qw2Er4Ty6Ui8Op0As2Df4"];

/** Every request the providers receive, as JSON, to search for what should never reach them. */
const sentToProviders: string[] = [];
function recording(): { llm: LanguageModel; embedder: Embedder } {
  const embedder = createHashingEmbedder();
  const sent = <T>(request: unknown, work: () => Promise<T>) => {
    sentToProviders.push(JSON.stringify(request));
    return work();
  };
  return {
    llm: {
      id: offlineLanguageModel.id,
      summarize: (request) => sent(request, () => offlineLanguageModel.summarize(request)),
      extract: (request) => sent(request, () => offlineLanguageModel.extract(request)),
    },
    embedder: {
      model: embedder.model,
      dimensions: embedder.dimensions,
      embed: (texts) => sent(texts, () => embedder.embed(texts)),
    },
  };
}

describe("write-time redaction (REDACT=all)", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ REDACT: "all", REFLECTION_IMPORTANCE_THRESHOLD: "1" }, { providers: recording() });
  });
  afterAll(() => runtime?.close());

  it("keeps every detected value out of the log, every table and every provider request, counting what it replaced", async () => {
    const sessionId = await createSession(runtime.app, "priya");
    const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [
        message("user", `My email is ${EMAIL} and my phone ${PHONE}. I live in Leeds.`),
        message("user", `Use card ${CARD} for the order, and the API key ${SECRET}.`, { data: { contact: EMAIL } }),
        message("assistant", "Noted, I will use them."),
      ],
    });
    expect(appended.status).toBe(201);
    const direct = await call(runtime.app, "POST", "/v1/memories", {
      user_id: "priya",
      type: "insight",
      content: `Priya's backup address is ${EMAIL}.`,
    });
    expect(direct.status).toBeLessThan(300);
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "priya");
    expect((await call(runtime.app, "POST", "/v1/memories/search", { user_id: "priya", query: `who has ${PHONE}?` })).status).toBe(200);
    const context = await call(runtime.app, "POST", "/v1/context", { user_id: "priya", query: `pay with ${CARD}`, max_tokens: 800 });
    expect(context.status).toBe(200);
    await runtime.background.settle();

    // The log keeps the words around them and says what was taken out.
    const log = (await call(runtime.app, "GET", `/v1/sessions/${sessionId}/events`)).body.events as {
      content: string;
      data: Record<string, unknown> | null;
    }[];
    expect(log[0]?.content).toBe("My email is [redacted email] and my phone [redacted phone]. I live in Leeds.");
    expect(log[0]?.data).toEqual({ redacted: { email: 1, phone: 1 } });
    expect(log[1]?.data).toEqual({ contact: "[redacted email]", redacted: { email: 1, card: 1, secret: 1 } });
    expect(log[2]?.data).toBeNull();
    // Memory still works on what is left.
    expect(JSON.stringify(context.body)).toContain("Leeds");

    expect(await findTraces(runtime.database.db, DETECTED)).toEqual([]);
    expect(sentToProviders.length).toBeGreaterThan(3);
    for (const value of DETECTED) expect(sentToProviders.filter((request) => request.includes(value))).toEqual([]);
  });

  it("is off by default: without REDACT the log keeps what was sent", async () => {
    const plain = await startTestRuntime();
    try {
      const sessionId = await createSession(plain.app, "noor");
      await call(plain.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", `Write to ${EMAIL}.`)] });
      const log = (await call(plain.app, "GET", `/v1/sessions/${sessionId}/events`)).body.events as { content: string }[];
      expect(log[0]?.content).toBe(`Write to ${EMAIL}.`);
    } finally {
      await plain.close();
    }
  });
});
