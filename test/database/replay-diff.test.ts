import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { offlineLanguageModel } from "../../src/providers/offline/offline-language-model.js";
import { type LanguageModel, ProviderError } from "../../src/providers/types.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * The offline model, or — once `revised.on` is set — the same model "with a changed prompt": it
 * no longer reports likes, words occupations differently and also records the user's language.
 * That is what a user changes before asking a rebuild preview what would change.
 */
const revised = { on: false, failing: false };
const model: LanguageModel = {
  id: offlineLanguageModel.id,
  summarize: (request) => offlineLanguageModel.summarize(request),
  extract: async (request) => {
    if (revised.failing) throw new ProviderError("429 Too Many Requests", true, 30_000);
    const extraction = await offlineLanguageModel.extract(request);
    if (!revised.on) return extraction;
    const firstUserTurn = request.turns.find((turn) => turn.role === "user");
    const facts = extraction.facts
      .filter((fact) => !fact.key.startsWith("attitude:"))
      .map((fact) => (fact.key === "profile:occupation" ? { ...fact, content: `The user's job: ${String(fact.value)}.` } : fact));
    if (firstUserTurn)
      facts.push({
        type: "profile",
        key: "profile:language",
        value: "English",
        content: "User writes in English.",
        confidence: 0.8,
        operation: "ADD",
        source_seqs: [firstUserTurn.seq],
      });
    return { ...extraction, facts };
  },
};

type Described = { type: string; key: string | null; content: string; memory_id?: string };
type Preview = {
  dry_run: true;
  sessions: number;
  counts: { added: number; removed: number; changed: number; unchanged: number };
  added: Described[];
  removed: Described[];
  changed: { memory_id: string; key: string | null; before: { content: string }; after: { content: string } }[];
};

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ LOG_LEVEL: "error" }, { providers: { llm: model } });
});
afterAll(() => runtime.close());

async function converse(userId: string, turns: string[]): Promise<void> {
  const sessionId = await createSession(runtime.app, userId);
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: turns.map((content, index) => message(index % 2 === 0 ? "user" : "assistant", content)),
  });
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
}

const preview = async (userId: string) => {
  const { status, body } = await call<Preview>(runtime.app, "POST", `/v1/users/${userId}/rebuild`, { dry_run: true });
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
};
const stored = async (userId: string) => (await runtime.app.request(`/v1/users/${userId}/export`)).text();
const currentFacts = async (userId: string) =>
  (
    await call<{ memories: { key: string; content: string }[] }>(
      runtime.app,
      "GET",
      `/v1/memories?user_id=${userId}&type=semantic&limit=100`,
    )
  ).body.memories
    .map((memory) => `${memory.key} = ${memory.content}`)
    .sort();

describe("replay diff: POST /v1/users/:id/rebuild {dry_run: true}", () => {
  it("derives the memory again in a shadow, shows what a changed model would change, applies nothing, and predicts the real rebuild", async () => {
    revised.on = false;
    await converse("iris", ["I live in Dresden and I work as a farrier.", "Nice!", "I love hiking on weekends.", "Sounds fun."]);
    await converse("iris", ["We moved to Coimbra last month.", "Congratulations on the move!"]);
    await waitForSettled(runtime.app, "iris");
    const before = await stored("iris");
    const factsBefore = await currentFacts("iris");
    expect(factsBefore).toEqual(
      expect.arrayContaining(["profile:location = User lives in Coimbra.", "attitude:hiking = User loves hiking."]),
    );

    // The same providers derive the same memory: nothing to apply.
    const same = await preview("iris");
    expect(same.sessions).toBe(2);
    expect(same.counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
    expect(same.counts.unchanged).toBeGreaterThan(0);

    // A changed model: the preview names every difference, keyed, with both sides of a change.
    revised.on = true;
    const usageBefore = (await call<{ totals: { calls: number } }>(runtime.app, "GET", "/v1/usage?user_id=iris")).body.totals.calls;
    const diff = await preview("iris");
    expect(diff.removed.map((memory) => memory.key)).toEqual(["attitude:hiking"]);
    expect(diff.removed[0]?.memory_id).toEqual(expect.any(String));
    expect(diff.added.map((memory) => `${memory.key} = ${memory.content}`)).toEqual(["profile:language = User writes in English."]);
    expect(diff.changed).toEqual([
      expect.objectContaining({
        key: "profile:occupation",
        before: expect.objectContaining({ content: "User works as a farrier." }),
        after: expect.objectContaining({ content: "The user's job: farrier." }),
      }),
    ]);
    expect(diff.counts).toMatchObject({ added: 1, removed: 1, changed: 1 });

    // Nothing was applied, but the calls the preview made are metered.
    expect(await stored("iris")).toBe(before);
    const usageAfter = (await call<{ totals: { calls: number } }>(runtime.app, "GET", "/v1/usage?user_id=iris")).body.totals.calls;
    expect(usageAfter).toBeGreaterThan(usageBefore);

    // Applying it (no dry_run) gives what the preview said, and a preview then finds nothing left to change.
    const applied = await call(runtime.app, "POST", "/v1/users/iris/rebuild", {});
    expect(applied.status).toBe(202);
    await waitForSettled(runtime.app, "iris");
    const factsAfter = await currentFacts("iris");
    expect(factsAfter).toContain("profile:language = User writes in English.");
    expect(factsAfter).toContain("profile:occupation = The user's job: farrier.");
    expect(factsAfter.some((fact) => fact.startsWith("attitude:"))).toBe(false);
    expect((await preview("iris")).counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
    revised.on = false;
  });

  it("previews a user whose pipeline has not caught up: what a rebuild would add is listed, and the pipeline still finishes", async () => {
    revised.on = false;
    await converse("jon", ["I live in Trondheim.", "Nice city."]);
    // No wait: the preview runs while replay and reflection of this session may be in flight.
    const diff = await preview("jon");
    expect(diff.sessions).toBe(1);
    await waitForSettled(runtime.app, "jon");
    expect(await currentFacts("jon")).toContain("profile:location = User lives in Trondheim.");
    expect((await preview("jon")).counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
  });

  it("answers a provider failure mid-derivation with a 503 and changes nothing", async () => {
    const before = await stored("iris");
    const previewed = (await preview("iris")).counts;
    revised.failing = true;
    try {
      const { status, body } = await call(runtime.app, "POST", "/v1/users/iris/rebuild", { dry_run: true });
      expect(status).toBe(503);
      expect(body.error).toMatchObject({ code: "unavailable", details: { retryable: true, retry_after_seconds: 30 } });
    } finally {
      revised.failing = false;
    }
    expect(await stored("iris")).toBe(before);
    // Nothing is left holding the user: the next preview runs, and finds what the one before the failure found.
    expect((await preview("iris")).counts).toEqual(previewed);
  });

  it("answers bad input with a 400 naming the field and changes nothing", async () => {
    const before = await stored("iris");
    const wrongType = await call(runtime.app, "POST", "/v1/users/iris/rebuild", { dry_run: "yes" });
    expect(wrongType.status).toBe(400);
    expect(JSON.stringify(wrongType.body)).toContain("dry_run");
    const unknown = await call(runtime.app, "POST", "/v1/users/iris/rebuild", { dry_run: true, apply_now: true });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain("apply_now");
    expect(await stored("iris")).toBe(before);
    // A user with no log: nothing to derive, nothing to change.
    const nobody = await preview("nobody-here");
    expect(nobody).toMatchObject({ sessions: 0, counts: { added: 0, removed: 0, changed: 0, unchanged: 0 } });
  });
});
