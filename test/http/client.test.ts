import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryClient } from "../../client/index.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { createApiKey } from "../../src/auth/api-keys.js";
import { startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
let apiKey: string;
beforeAll(async () => {
  runtime = await startTestRuntime({ AUTH_REQUIRED: "true" });
  apiKey = (await createApiKey(runtime.database.db, { appId: "typed", name: "client-test" })).key;
});
afterAll(() => runtime.close());

const inProcess = (input: RequestInfo | URL, init?: RequestInit) =>
  Promise.resolve(runtime.app.request(input instanceof Request ? input : String(input), init));

describe("typed client (Hono RPC)", () => {
  it("drives the API end to end with checked requests and typed responses", async () => {
    const memory = createMemoryClient("http://localhost", { apiKey, fetch: inProcess as typeof fetch });
    const created = await memory.v1.sessions.$post({ json: { user_id: "tia" } });
    expect(created.status).toBe(201);
    if (!created.ok) throw new Error(`create session: ${created.status}`);
    const session = await created.json();
    expect(session.app_id).toBe("typed");

    const appended = await memory.v1.sessions[":id"].events.$post({
      param: { id: session.id },
      json: { events: [{ type: "message", role: "user", content: "I keep bees on my balcony in Ghent." }] },
    });
    if (!appended.ok) throw new Error(`append: ${appended.status}`);
    expect((await appended.json()).last_seq).toBe(1);

    // Ended: deep reflection runs, and with it the entity graph.
    expect((await memory.v1.sessions[":id"].end.$post({ param: { id: session.id } })).status).toBe(200);
    const status = { request: (path: string) => inProcess(path, { headers: { authorization: `Bearer ${apiKey}` } }) };
    await waitForSettled(status, "tia");
    const context = await memory.v1.context.$post({ json: { user_id: "tia", query: "Where are the bees?", max_tokens: 300 } });
    expect(context.status).toBe(200);
    if (!context.ok) throw new Error(`context: ${context.status}`);
    expect((await context.json()).prompt).toContain("Ghent");

    // The entity graph, typed like the rest: the place the user named, then where it was named.
    const entities = await memory.v1.entities.$get({ query: { user_id: "tia", q: "Ghent" } });
    if (!entities.ok) throw new Error(`entities: ${entities.status}`);
    const [ghent] = (await entities.json()).entities;
    expect(ghent?.kind).toBe("place");
    const detail = await memory.v1.entities[":id"].$get({ param: { id: ghent?.id as string }, query: {} });
    if (!detail.ok) throw new Error(`entity: ${detail.status}`);
    // Named in the turn: the event is one of its mentions.
    expect((await detail.json()).mentions.map((mention) => mention.seq)).toEqual([1]);

    const unauthenticated = createMemoryClient("http://localhost", { fetch: inProcess as typeof fetch });
    expect((await unauthenticated.v1.sessions.$get({ query: { user_id: "tia" } })).status).toBe(401);
  });
});
