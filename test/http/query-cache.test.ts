import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, createSession, startTestRuntime } from "../fixtures/runtime.js";

type Usage = { days: { stage: string; calls: number }[] };

let cached: Runtime;
let uncached: Runtime;
beforeAll(async () => {
  [cached, uncached] = await Promise.all([
    startTestRuntime({ EXECUTOR_ENABLED: "false" }),
    startTestRuntime({ EXECUTOR_ENABLED: "false", QUERY_CACHE_SIZE: "0" }),
  ]);
  // Usage is billed to a user who has a session (the erasure check); otherwise to the app.
  for (const userId of ["ola", "pia", "quin"]) await createSession(cached.app, userId);
  await createSession(uncached.app, "ola");
});
afterAll(() => Promise.all([cached.close(), uncached.close()]));

/** Query embeddings billed to the user: the embedder calls made for their searches and context windows. */
async function queryEmbeddings(runtime: Runtime, userId: string): Promise<number> {
  await runtime.background.settle();
  const usage = (await call<Usage>(runtime.app, "GET", `/v1/usage?user_id=${userId}`)).body;
  return usage.days.filter((day) => day.stage === "query").reduce((sum, day) => sum + day.calls, 0);
}

const context = (runtime: Runtime, userId: string, query: string) =>
  call(runtime.app, "POST", "/v1/context", { user_id: userId, query, max_tokens: 600 });

describe("query vector cache (QUERY_CACHE_SIZE, QUERY_CACHE_TTL)", () => {
  it("embeds an agent's repeated query once, with the same window, and a new query anew", async () => {
    await call(cached.app, "POST", "/v1/memories", { user_id: "ola", type: "insight", content: "Ola keeps three cats at home." });
    const first = await context(cached, "ola", "what pets does she have?");
    const again = await context(cached, "ola", "what pets does she have?");
    expect(again.body.prompt).toBe(first.body.prompt);
    expect(again.body.prompt).toContain("three cats");
    // A search with the same query shares the vector too.
    expect((await call(cached.app, "POST", "/v1/memories/search", { user_id: "ola", query: "what pets does she have?" })).status).toBe(200);
    expect(await queryEmbeddings(cached, "ola")).toBe(1);
    await context(cached, "ola", "where does she live?");
    expect(await queryEmbeddings(cached, "ola")).toBe(2);
    // Another user's identical query is theirs to pay for.
    await context(cached, "pia", "what pets does she have?");
    expect(await queryEmbeddings(cached, "pia")).toBe(1);
  });

  it("forgets an erased user's queries", async () => {
    await context(cached, "quin", "what does he cook?");
    // Its usage is recorded after the answer: let it land before the erasure, which then takes it. A
    // write still in flight would land under the user again once the session below exists.
    await cached.background.settle();
    expect((await call(cached.app, "DELETE", "/v1/users/quin")).status).toBe(200);
    // The erasure took the usage too; the same query after it is embedded (and billed) again.
    await createSession(cached.app, "quin");
    await context(cached, "quin", "what does he cook?");
    expect(await queryEmbeddings(cached, "quin")).toBe(1);
  });

  it("embeds every query at size 0", async () => {
    await context(uncached, "ola", "what pets does she have?");
    await context(uncached, "ola", "what pets does she have?");
    expect(await queryEmbeddings(uncached, "ola")).toBe(2);
  });
});
