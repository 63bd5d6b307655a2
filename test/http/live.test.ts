import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { PipelineProgressReader } from "../../src/live/pipeline-progress.js";
import { call, createSession, message, SETTLE_TIMEOUT_MS, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ LIVE_POLL_INTERVAL: "50ms" });
});
afterAll(() => runtime.close());

type Frame = { event: string; data: any };

/** Reads server-sent events from a streaming response until `done` says enough. */
async function collect(
  response: Response,
  done: (frames: Frame[]) => boolean,
  timeoutMs = SETTLE_TIMEOUT_MS,
  returnOnTimeout = false,
): Promise<Frame[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  while (!done(frames)) {
    const left = deadline - Date.now();
    const next = await Promise.race([
      reader.read(),
      new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), Math.max(0, left))),
    ]);
    if (next === "timeout") {
      if (returnOnTimeout) break;
      throw new Error(`timed out; got ${frames.map((frame) => frame.event).join(", ")}`);
    }
    const { value, done: ended } = next;
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    let boundary = buffer.indexOf("\n\n");
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const event = block.match(/^event: (.*)$/m)?.[1] ?? "message";
      const data = block.match(/^data: (.*)$/m)?.[1];
      if (data) frames.push({ event, data: JSON.parse(data) });
      boundary = buffer.indexOf("\n\n");
    }
  }
  await reader.cancel();
  return frames;
}

describe("live events (V1, server-sent events)", () => {
  it("streams consolidation progress, memory hits with sources and context budget use", async () => {
    const sessionId = await createSession(runtime.app, "liv");
    const stream = await runtime.app.request(`/v1/live?user_id=liv`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const frames = collect(
      stream,
      (seen) =>
        seen.some((frame) => frame.event === "ACTIVITY_SNAPSHOT" && frame.data.content.status === "completed") &&
        seen.some((frame) => frame.event === "STATE_DELTA") &&
        seen.some((frame) => frame.event === "CUSTOM" && frame.data.name === "memory_hits" && frame.data.value.hits.length > 0),
    );

    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "My daughter Lena starts school in Utrecht in August.")],
    });
    // Ask for context until the replayed memory is there to be hit.
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    let used = 0;
    while (used === 0 && Date.now() < deadline) {
      const context = await call(runtime.app, "POST", "/v1/context", {
        user_id: "liv",
        query: "When does Lena start school?",
        max_tokens: 400,
      });
      used = context.body.sections.find((section: { kind: string }) => section.kind === "memories")?.items.length ?? 0;
      if (used === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = await frames;
    expect(seen[0]).toMatchObject({ event: "CUSTOM", data: { name: "subscribed", value: { user_id: "liv" } } });
    const jobs = seen
      .filter((frame) => frame.event === "ACTIVITY_SNAPSHOT")
      .map((frame) => `${frame.data.content.job_type}:${frame.data.content.status}`);
    expect(jobs).toContain("fast_replay:completed");
    const hits = seen.find((frame) => frame.event === "CUSTOM" && frame.data.name === "memory_hits" && frame.data.value.hits.length > 0)
      ?.data.value;
    expect(hits.query).toBe("When does Lena start school?");
    expect(hits.hits[0].sources[0]).toMatchObject({ session_id: sessionId, seq: 1 });
    const budget = seen.find((frame) => frame.event === "STATE_DELTA")?.data.delta[0];
    expect(budget).toMatchObject({ op: "replace", path: "/context_budget", value: { max_tokens: 400 } });
    expect(budget.value.total_tokens).toBeLessThanOrEqual(400);
  });

  it("shows nothing of another user, and refuses bad input", async () => {
    const stream = await runtime.app.request(`/v1/live?user_id=quiet`);
    // Everything the stream says within a second while another user is busy.
    const frames = collect(stream, () => false, 1000, true);
    await call(runtime.app, "POST", "/v1/memories", { user_id: "loud", type: "insight", content: "Loud likes drums." });
    await call(runtime.app, "POST", "/v1/context", { user_id: "loud", query: "drums", max_tokens: 200 });
    const seen = await frames;
    expect(seen.map((frame) => frame.event)).toEqual(["CUSTOM"]);
    expect((await call(runtime.app, "GET", "/v1/live")).status).toBe(400);
    expect((await call(runtime.app, "GET", "/v1/live?user_id=x&session_id=nope")).status).toBe(400);
  });
});

describe("a live stream's memory", () => {
  it("reports what changed after the stream opened at its first read, which waits for the first poll", async () => {
    const reader = new PipelineProgressReader(runtime.database.db, { appId: "default", userId: "late-reader" }, 0);
    // PGlite's clock counts whole milliseconds: a row written within one of the opening could be
    // stamped before it (once in CI). A stream's default lookback (10 s) covers that; this one has none.
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Changed between the opening and the first read (a poll later), or before the opening.
    await runtime.database.db.execute(
      sql`INSERT INTO consolidation_jobs (id, app_id, user_id, job_type, status, started_at, completed_at) VALUES
            (gen_random_uuid(), 'default', 'late-reader', 'fast_replay', 'completed', now(), now()),
            (gen_random_uuid(), 'default', 'late-reader', 'deep_reflection', 'completed', now() - interval '1 minute', now() - interval '1 minute')`,
    );
    const first = await reader.next();
    expect(first.map((event) => (event.type === "ACTIVITY_SNAPSHOT" ? event.content["job_type"] : event.type))).toEqual(["fast_replay"]);
    expect(await reader.next()).toEqual([]);
  });

  it("forgets what it reported once it can no longer come again, however long the stream stays open", async () => {
    const reader = new PipelineProgressReader(runtime.database.db, { appId: "default", userId: "long-stream" }, 1);
    await reader.next();
    await runtime.database.db.execute(
      sql`INSERT INTO consolidation_jobs (id, app_id, user_id, job_type, status, started_at, completed_at) VALUES (gen_random_uuid(), 'default', 'long-stream', 'fast_replay', 'completed', now(), now())`,
    );
    expect((await reader.next()).map((event) => event.type)).toEqual(["ACTIVITY_SNAPSHOT"]);
    expect(reader.remembered).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await reader.next()).toEqual([]);
    expect(reader.remembered).toBe(0);
  });
});
