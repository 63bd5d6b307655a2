import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { onPostgres } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

describe("POST /v1/sessions", () => {
  it("creates a session with defaults and returns 201", async () => {
    const { status, body } = await call(runtime.app, "POST", "/v1/sessions", {
      user_id: "u1",
      agent_id: "a1",
      metadata: { channel: "web" },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      user_id: "u1",
      app_id: "default",
      agent_id: "a1",
      metadata: { channel: "web" },
      last_seq: 0,
      ended_at: null,
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.state).toEqual({ session: {}, user: {}, app: {} });
  });

  it("keeps a client-supplied started_at", async () => {
    const { body } = await call(runtime.app, "POST", "/v1/sessions", { user_id: "u1", started_at: "2023-05-08T13:56:00Z" });
    expect(body.started_at).toBe("2023-05-08T13:56:00.000Z");
  });

  it.each([
    [{}, "body.user_id"],
    [{ user_id: 42 }, "body.user_id"],
    [{ user_id: "u1", colour: "red" }, "body.colour"],
    [{ user_id: "u1", started_at: "yesterday" }, "body.started_at"],
  ])("rejects %j with 400 naming %s", async (payload, field) => {
    const { status, body } = await call(runtime.app, "POST", "/v1/sessions", payload);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
  });

  it("rejects malformed JSON with 400 in the same error shape", async () => {
    const { status, body } = await call(runtime.app, "POST", "/v1/sessions", "{not json");
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
  });
});

describe("GET /v1/sessions/:id and listing", () => {
  it("returns the session with last_seq and state", async () => {
    const id = await createSession(runtime.app, "u2");
    await call(runtime.app, "POST", `/v1/sessions/${id}/events`, { events: [message("user", "hello there friend")] });
    const { status, body } = await call(runtime.app, "GET", `/v1/sessions/${id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id, user_id: "u2", last_seq: 1, state: { session: {}, user: {}, app: {} } });
  });

  it.each(["00000000-0000-4000-8000-000000000000", "not-a-uuid"])("answers 404 for unknown session %s", async (id) => {
    const { status, body } = await call(runtime.app, "GET", `/v1/sessions/${id}`);
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });

  it("lists a user's sessions, newest first, scoped by app", async () => {
    const first = await createSession(runtime.app, "lister", { started_at: "2024-01-01T00:00:00Z" });
    const second = await createSession(runtime.app, "lister", { started_at: "2024-02-01T00:00:00Z" });
    await createSession(runtime.app, "lister", { app_id: "other-app" });
    const { body } = await call(runtime.app, "GET", "/v1/sessions?user_id=lister");
    expect(body.sessions.map((session: { id: string }) => session.id)).toEqual([second, first]);
  });

  it("answers unknown routes with 404 in the error shape", async () => {
    const { status, body } = await call(runtime.app, "GET", "/v1/nothing-here");
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });
});

describe("POST /v1/sessions/:id/end", () => {
  it("ends once, is idempotent, and then refuses appends with 409 without touching the log", async () => {
    const id = await createSession(runtime.app, "u3");
    await call(runtime.app, "POST", `/v1/sessions/${id}/events`, { events: [message("user", "first words here")] });
    const ended = await call(runtime.app, "POST", `/v1/sessions/${id}/end`);
    expect(ended.status).toBe(200);
    expect(ended.body.ended_at).not.toBeNull();
    const again = await call(runtime.app, "POST", `/v1/sessions/${id}/end`);
    expect(again.body.ended_at).toBe(ended.body.ended_at);

    const refused = await call(runtime.app, "POST", `/v1/sessions/${id}/events`, { events: [message("user", "too late")] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("conflict");
    const log = await call(runtime.app, "GET", `/v1/sessions/${id}/events`);
    expect(log.body.events.map((event: { content: string }) => event.content)).toEqual(["first words here"]);
    expect(log.body.last_seq).toBe(1);
  });

  it("answers 404 for an unknown session", async () => {
    const { status } = await call(runtime.app, "POST", "/v1/sessions/00000000-0000-4000-8000-000000000001/end");
    expect(status).toBe(404);
  });
});

describe("PATCH /v1/sessions/:id/state", () => {
  it("applies scoped deltas: session state is private, user state follows the user, app state is shared", async () => {
    const a = await createSession(runtime.app, "state-user");
    const b = await createSession(runtime.app, "state-user");
    const other = await createSession(runtime.app, "someone-else");

    const patched = await call(runtime.app, "PATCH", `/v1/sessions/${a}/state`, {
      session: { step: 2, draft: "x" },
      user: { language: "de" },
      app: { motd: "hi" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.state).toEqual({ session: { step: 2, draft: "x" }, user: { language: "de" }, app: { motd: "hi" } });

    const removed = await call(runtime.app, "PATCH", `/v1/sessions/${a}/state`, { session: { draft: null, nested: { a: null } } });
    expect(removed.body.state.session).toEqual({ step: 2, nested: { a: null } });

    expect((await call(runtime.app, "GET", `/v1/sessions/${b}`)).body.state).toEqual({
      session: {},
      user: { language: "de" },
      app: { motd: "hi" },
    });
    expect((await call(runtime.app, "GET", `/v1/sessions/${other}`)).body.state).toEqual({ session: {}, user: {}, app: { motd: "hi" } });
  });

  it.each([[{}], [{ tenant: { a: 1 } }], [{ session: "x" }]])("rejects %j with 400", async (payload) => {
    const id = await createSession(runtime.app, "state-user");
    const { status, body } = await call(runtime.app, "PATCH", `/v1/sessions/${id}/state`, payload);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
  });

  it("answers 404 for an unknown session", async () => {
    const { status } = await call(runtime.app, "PATCH", "/v1/sessions/00000000-0000-4000-8000-000000000002/state", { session: { a: 1 } });
    expect(status).toBe(404);
  });
});

describe("embedded Inngest handler", () => {
  it("is not reachable over HTTP, because in embedded mode it runs unsigned", async () => {
    for (const method of ["GET", "PUT", "POST"]) {
      expect((await call(runtime.app, method, "/api/inngest", method === "GET" ? undefined : {})).status).toBe(404);
    }
  });
});

describe("GET /healthz", () => {
  it("reports the database driver", async () => {
    const { status, body } = await call(runtime.app, "GET", "/healthz");
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "ok", database: { driver: onPostgres ? "pg" : "pglite" } });
  });
});
