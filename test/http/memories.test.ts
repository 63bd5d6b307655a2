import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, createSession, message, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

const post = (body: Record<string, unknown>) => call(runtime.app, "POST", "/v1/memories", body);
const fact = (extra: Record<string, unknown> = {}) => ({
  user_id: "nia",
  type: "semantic",
  subtype: "profile",
  key: "profile:city",
  value: "Paris",
  content: "User lives in Paris.",
  ...extra,
});

describe("POST /v1/memories (structured ingestion)", () => {
  it("adds, recognises a duplicate, and supersedes on a new value", async () => {
    const added = await post(fact({ valid_at: "2024-01-01T00:00:00Z" }));
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      operation: "ADD",
      memory: { type: "semantic", key: "profile:city", content: "User lives in Paris.", embedded: true, metadata: { origin: "api" } },
    });

    const again = await post(fact({ valid_at: "2024-01-02T00:00:00Z" }));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ operation: "NOOP", memory: { id: added.body.memory.id } });

    const moved = await post(fact({ value: "Lyon", content: "User lives in Lyon.", valid_at: "2024-03-01T00:00:00Z" }));
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ operation: "UPDATE", memory: { content: "User lives in Lyon.", version: 2 } });
    const old = (await call(runtime.app, "GET", `/v1/memories/${added.body.memory.id}`)).body;
    expect(old).toMatchObject({ superseded_by: moved.body.memory.id, invalid_at: "2024-03-01T00:00:00.000Z" });
    const history = (await call(runtime.app, "GET", `/v1/memories/${added.body.memory.id}/history`)).body.history;
    expect(history.map((entry: { operation: string; actor: string }) => `${entry.operation}/${entry.actor}`)).toEqual([
      "ADD/api",
      "SUPERSEDE/api",
    ]);
    expect(history[1].before.content).toBe("User lives in Paris.");
  });

  it("treats a near-identical insight as the same memory", async () => {
    const first = await post({ user_id: "oli", type: "insight", content: "The user enjoys hiking in the mountains on weekends." });
    const second = await post({ user_id: "oli", type: "insight", content: "The user enjoys hiking in the mountains on weekends!" });
    expect(first.body.operation).toBe("ADD");
    expect(second.body).toMatchObject({ operation: "NOOP", memory: { id: first.body.memory.id } });
    expect(second.body.reason).toMatch(/similarity 0\.9\d+ > 0\.95|same content/);
    const different = await post({ user_id: "oli", type: "insight", content: "The user is learning to play the cello." });
    expect(different.body.operation).toBe("ADD");
  });

  it("links source events of the same user and refuses others' events", async () => {
    const mine = await createSession(runtime.app, "pat");
    const theirs = await createSession(runtime.app, "quinn");
    const [myEvent] = (
      await call(runtime.app, "POST", `/v1/sessions/${mine}/events`, { events: [message("user", "I work at the harbour.")] })
    ).body.events;
    const [theirEvent] = (await call(runtime.app, "POST", `/v1/sessions/${theirs}/events`, { events: [message("user", "secret")] })).body
      .events;
    const linked = await post({
      user_id: "pat",
      type: "semantic",
      subtype: "profile",
      key: "profile:employer",
      value: "harbour",
      content: "User works at the harbour.",
      source_event_ids: [myEvent.id],
    });
    expect(linked.body.memory.sources).toEqual([{ session_id: mine, event_id: myEvent.id, seq: 1 }]);
    const refused = await post({ user_id: "pat", type: "insight", content: "x y z", source_event_ids: [theirEvent.id] });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toMatchObject({ field: "source_event_ids", missing: [theirEvent.id] });
  });

  it.each([
    [{ user_id: "r", type: "semantic", subtype: "profile", value: "x", content: "c" }, "body.key"],
    [{ user_id: "r", type: "episodic", content: "c" }, "body.type"],
    [{ user_id: "r", type: "insight", content: "" }, "body.content"],
    [{ user_id: "r", type: "insight", content: "c", confidence: 2 }, "body.confidence"],
    [{ user_id: "r", type: "insight", content: "nul \u0000 here" }, "body.content"],
  ])("rejects %j with 400 naming %s", async (payload, field) => {
    const { status, body } = await post(payload);
    expect(status).toBe(400);
    expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
  });

  it("stores an importance or confidence too small for a real as 0 (as the column would round it), not a 500", async () => {
    const tiny = await post({ user_id: "ivo", type: "insight", content: "Ivo hums while he cooks.", importance: 3e-67 });
    expect(tiny.status, JSON.stringify(tiny.body)).toBe(201);
    expect(tiny.body.memory.importance).toBe(0);
    const unsure = await post(fact({ user_id: "ivo", confidence: 1e-300, importance: 1e-40 }));
    expect(unsure.status, JSON.stringify(unsure.body)).toBe(201);
    expect(unsure.body.memory.confidence).toBe(0);
    expect(unsure.body.memory.importance).toBeCloseTo(1e-40, 45);
  });
});

describe("DELETE /v1/memories/:id", () => {
  it("soft-deletes with history, is idempotent, and hides the memory from current and as-of listings", async () => {
    const created = (await post(fact({ user_id: "sam", valid_at: "2024-01-01T00:00:00Z" }))).body.memory;
    const deleted = await call(runtime.app, "DELETE", `/v1/memories/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.expired_at).not.toBeNull();
    expect((await call(runtime.app, "DELETE", `/v1/memories/${created.id}`)).body.expired_at).toBe(deleted.body.expired_at);
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=sam")).body.memories).toEqual([]);
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=sam&as_of=2024-06-01T00:00:00Z")).body.memories).toEqual([]);
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=sam&include_expired=true")).body.memories).toHaveLength(1);
    const history = (await call(runtime.app, "GET", `/v1/memories/${created.id}/history`)).body.history;
    expect(history.map((entry: { operation: string }) => entry.operation)).toEqual(["ADD", "DELETE"]);
  });

  it("answers 404 for unknown memories and 409 for a superseded version", async () => {
    expect((await call(runtime.app, "DELETE", "/v1/memories/00000000-0000-4000-8000-00000000000a")).status).toBe(404);
    expect((await call(runtime.app, "GET", "/v1/memories/00000000-0000-4000-8000-00000000000a/history")).status).toBe(404);
    const first = (await post(fact({ user_id: "tao", valid_at: "2024-01-01T00:00:00Z" }))).body.memory;
    await post(fact({ user_id: "tao", value: "Nice", content: "User lives in Nice.", valid_at: "2024-02-01T00:00:00Z" }));
    const refused = await call(runtime.app, "DELETE", `/v1/memories/${first.id}`);
    expect(refused.status).toBe(409);
  });
});

describe("/v1/instructions (procedural memory)", () => {
  it("keeps every version and serves the latest or a given one", async () => {
    const v1 = await call(runtime.app, "PUT", "/v1/instructions/tone", { content: "Be concise." });
    const v2 = await call(runtime.app, "PUT", "/v1/instructions/tone", { content: "Be concise and warm.", metadata: { author: "ops" } });
    expect([v1.status, v1.body.version, v2.body.version]).toEqual([201, 1, 2]);
    expect((await call(runtime.app, "GET", "/v1/instructions/tone")).body).toMatchObject({
      version: 2,
      content: "Be concise and warm.",
      metadata: { author: "ops" },
    });
    expect((await call(runtime.app, "GET", "/v1/instructions/tone?version=1")).body.content).toBe("Be concise.");
    expect(
      (await call(runtime.app, "GET", "/v1/instructions/tone/versions")).body.versions.map((row: { version: number }) => row.version),
    ).toEqual([2, 1]);
    expect((await call(runtime.app, "GET", "/v1/instructions/tone?app_id=other")).status).toBe(404);
  });

  it("rejects bad input and unknown keys", async () => {
    expect((await call(runtime.app, "PUT", "/v1/instructions/tone", { content: "" })).status).toBe(400);
    expect((await call(runtime.app, "GET", "/v1/instructions/missing")).status).toBe(404);
    expect((await call(runtime.app, "GET", "/v1/instructions/tone?version=99")).status).toBe(404);
  });
});
