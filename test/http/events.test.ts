import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, createSession, message, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false", MAX_BODY_BYTES: "4096" });
});
afterAll(() => runtime.close());

const append = (id: string, events: unknown[]) => call(runtime.app, "POST", `/v1/sessions/${id}/events`, { events });
const readAll = async (id: string) => (await call(runtime.app, "GET", `/v1/sessions/${id}/events?limit=1000`)).body;

describe("POST /v1/sessions/:id/events", () => {
  it("appends one or many events with gapless sequence numbers, readable by the next request", async () => {
    const id = await createSession(runtime.app, "e1");
    const one = await append(id, [message("user", "I love rowing")]);
    expect(one.status).toBe(201);
    expect(one.body.events).toEqual([{ id: expect.any(String), seq: 1 }]);
    const many = await append(id, [
      message("assistant", "Where do you hike?"),
      message("user", "In the Alps"),
      { type: "tool_call", role: "tool", content: "", data: { name: "weather" } },
    ]);
    expect(many.body.events.map((event: { seq: number }) => event.seq)).toEqual([2, 3, 4]);

    const log = await readAll(id);
    expect(log.events.map((event: { seq: number }) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(log.events[0]).toMatchObject({
      id: one.body.events[0].id,
      role: "user",
      content: "I love rowing",
      type: "message",
      token_count: 3,
    });
    expect(log.events[3]).toMatchObject({ role: "tool", data: { name: "weather" }, token_count: 0 });
  });

  it("keeps occurred_at so history can be imported with its original timestamps", async () => {
    const id = await createSession(runtime.app, "e1");
    await append(id, [message("user", "old news", { occurred_at: "2023-05-08T13:56:00+02:00" })]);
    expect((await readAll(id)).events[0].occurred_at).toBe("2023-05-08T11:56:00.000Z");
  });

  it("pages with after_seq and limit", async () => {
    const id = await createSession(runtime.app, "e1");
    await append(
      id,
      Array.from({ length: 7 }, (_, i) => message("user", `turn ${i + 1}`)),
    );
    const page = await call(runtime.app, "GET", `/v1/sessions/${id}/events?after_seq=2&limit=3`);
    expect(page.body.events.map((event: { seq: number }) => event.seq)).toEqual([3, 4, 5]);
    expect(page.body.next_after_seq).toBe(5);
    const last = await call(runtime.app, "GET", `/v1/sessions/${id}/events?after_seq=5`);
    expect(last.body.events.map((event: { seq: number }) => event.seq)).toEqual([6, 7]);
    expect(last.body.next_after_seq).toBeNull();
    const bad = await call(runtime.app, "GET", `/v1/sessions/${id}/events?after_seq=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].field).toBe("query.after_seq");
  });

  it("returns the original ids for a re-sent idempotency key and stores nothing new", async () => {
    const id = await createSession(runtime.app, "e2");
    const first = await append(id, [
      message("user", "pay invoice 7", { idempotency_key: "k1" }),
      message("user", "thanks", { idempotency_key: "k2" }),
    ]);
    const again = await append(id, [
      message("user", "pay invoice 7", { idempotency_key: "k1" }),
      message("user", "thanks", { idempotency_key: "k2" }),
    ]);
    expect(again.status).toBe(201);
    expect(again.body.events).toEqual(first.body.events);
    expect(again.body.stored).toBe(0);

    const mixed = await append(id, [
      message("user", "thanks", { idempotency_key: "k2" }),
      message("user", "new one", { idempotency_key: "k3" }),
    ]);
    expect(mixed.body.events[0]).toEqual(first.body.events[1]);
    expect(mixed.body.events[1].seq).toBe(3);
    expect((await readAll(id)).events).toHaveLength(3);
  });

  it("answers 409 when a key is re-used with different content, leaving the log as it was", async () => {
    const id = await createSession(runtime.app, "e2");
    await append(id, [message("user", "original", { idempotency_key: "dup" })]);
    const before = await readAll(id);
    const clash = await append(id, [
      message("user", "fresh", { idempotency_key: "other" }),
      message("user", "changed", { idempotency_key: "dup" }),
    ]);
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: "conflict", details: { field: "events[1].idempotency_key" } });
    expect(await readAll(id)).toEqual(before);
  });

  it("rejects a key repeated inside one request with 400", async () => {
    const id = await createSession(runtime.app, "e2");
    const { status, body } = await append(id, [
      message("user", "a", { idempotency_key: "x" }),
      message("user", "b", { idempotency_key: "x" }),
    ]);
    expect(status).toBe(400);
    expect(body.error.details.issues[0].field).toBe("body.events.1.idempotency_key");
  });

  it.each([
    [{ events: [] }, "body.events"],
    [{ events: [{ type: "message", role: "robot", content: "x" }] }, "body.events.0.role"],
    [{ events: [{ type: "message", role: "user" }] }, "body.events.0.content"],
    [{ events: [{ type: "message", role: "user", content: "x", extra: 1 }] }, "body.events.0.extra"],
    [{ events: [{ type: "message", role: "user", content: "x", occurred_at: "May 8" }] }, "body.events.0.occurred_at"],
  ])("rejects %j with 400 naming %s and stores nothing", async (payload, field) => {
    const id = await createSession(runtime.app, "e3");
    const { status, body } = await call(runtime.app, "POST", `/v1/sessions/${id}/events`, payload);
    expect(status).toBe(400);
    expect(body.error.details.issues.map((issue: { field: string }) => issue.field)).toContain(field);
    expect((await readAll(id)).last_seq).toBe(0);
  });

  it("answers 413 over the body limit and stores nothing", async () => {
    const id = await createSession(runtime.app, "e3");
    const { status, body } = await append(id, [message("user", "x".repeat(5000))]);
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ code: "payload_too_large", details: { max_bytes: 4096 } });
    expect((await readAll(id)).last_seq).toBe(0);
  });

  it("answers 404 for an unknown session", async () => {
    const { status } = await append("00000000-0000-4000-8000-000000000003", [message("user", "hello")]);
    expect(status).toBe(404);
    expect((await call(runtime.app, "GET", "/v1/sessions/00000000-0000-4000-8000-000000000003/events")).status).toBe(404);
  });
});

describe("concurrent appends", () => {
  it("keep sequences gapless and unique under 100 concurrent requests to one session", async () => {
    const id = await createSession(runtime.app, "busy");
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        append(id, i % 3 === 0 ? [message("user", `a${i}`), message("user", `b${i}`)] : [message("user", `c${i}`)]),
      ),
    );
    expect(responses.every((response) => response.status === 201)).toBe(true);
    const seqs = responses.flatMap((response) => response.body.events.map((event: { seq: number }) => event.seq)).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const log = await readAll(id);
    expect(log.last_seq).toBe(seqs.length);
    // A request's events are contiguous in the log.
    for (const response of responses) {
      const mine = response.body.events.map((event: { seq: number }) => event.seq);
      expect(mine).toEqual(mine.map((_: number, i: number) => mine[0] + i));
    }
  });

  it("store a concurrently re-sent idempotency key once", async () => {
    const id = await createSession(runtime.app, "busy");
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => append(id, [message("user", "charge card", { idempotency_key: "once" })])),
    );
    const ids = new Set(responses.map((response) => response.body.events[0].id));
    expect(ids.size).toBe(1);
    expect((await readAll(id)).events).toHaveLength(1);
  });
});
