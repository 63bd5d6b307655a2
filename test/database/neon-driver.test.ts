import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { onPostgres } from "../fixtures/database.js";
import { type NeonProxy, startNeonProxy } from "../fixtures/neon-proxy.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * The Neon serverless driver (Postgres over a WebSocket, what a Neon deployment without
 * Hyperdrive uses) against the real Postgres of the suite, through a local WebSocket→TCP proxy.
 */
let proxy: NeonProxy;
let runtime: Runtime;
beforeAll(async () => {
  if (!onPostgres) return;
  proxy = await startNeonProxy();
  runtime = await startTestRuntime({ DATABASE_DRIVER: "neon", NEON_WS_PROXY: proxy.address });
});
afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
});

describe.runIf(onPostgres)("Neon serverless driver", () => {
  it("serves appends, transactions (replay, reflection, structured ingestion) and context windows", async () => {
    expect((await call(runtime.app, "GET", "/healthz")).body.database.driver).toBe("neon");
    const sessionId = await createSession(runtime.app, "neon-user");
    const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [
        message("user", "I love sailing."),
        message("user", "Please remember that my sister Ana lives in Porto.", { idempotency_key: "k1" }),
      ],
    });
    expect(appended.body.events.map((event: { seq: number }) => event.seq)).toEqual([1, 2]);
    const resent = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "Please remember that my sister Ana lives in Porto.", { idempotency_key: "k1" })],
    });
    expect(resent.body).toMatchObject({ stored: 0, events: [appended.body.events[1]] });
    const ingested = await call(runtime.app, "POST", "/v1/memories", {
      user_id: "neon-user",
      type: "semantic",
      subtype: "profile",
      key: "profile:city",
      value: "Lisbon",
      content: "User lives in Lisbon.",
    });
    expect(ingested).toMatchObject({ status: 201, body: { operation: "ADD" } });
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "neon-user");
    const facts = (await call(runtime.app, "GET", "/v1/memories?user_id=neon-user&type=semantic")).body.memories.map(
      (fact: { content: string }) => fact.content,
    );
    expect(facts).toEqual(expect.arrayContaining(["User loves sailing.", "User lives in Lisbon."]));
    const context = await call(runtime.app, "POST", "/v1/context", {
      user_id: "neon-user",
      query: "Where does Ana live?",
      max_tokens: 400,
    });
    expect(context.status).toBe(200);
    expect(context.body.prompt).toContain("Porto");
  });
});
