import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import canonicalize from "canonicalize";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from "vitest";
import { createApiKey } from "../../src/auth/api-keys.js";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { connectDatabase } from "../../src/db/connect.js";
import { freshDatabase, onPostgres, type TestDatabase } from "../fixtures/database.js";
import { testPort } from "../fixtures/test-ports.js";
import { waitUntil } from "../fixtures/wait.js";

/**
 * The Worker in workerd (`wrangler dev`, which also runs the static-assets build), against the
 * suite's real Postgres on loopback standing in for Neon behind Hyperdrive, and a stand-in for
 * Inngest Cloud's event API that records what the Worker emits. Real Postgres only: a Worker opens a
 * connection per request (a live stream holds one for its lifetime), and PGlite behind pglite-socket
 * multiplexes those onto one session — a configuration no deployment has, which failed this test
 * on a loaded machine for reasons of its own.
 */
const SIGNING_KEY = "signkey-test-0123456789abcdef0123456789abcdef";
const workerPort = testPort("worker");
let database: TestDatabase | undefined;
let inngestCloud: Server;
let wrangler: ChildProcess;
let apiKey: string;
const received: { name: string; data: Record<string, unknown> }[] = [];
const base = `http://127.0.0.1:${workerPort}`;

/** The connection string the Worker's Hyperdrive binding gets, with an API key created in that database. */
async function startDatabase(): Promise<string> {
  database = await freshDatabase();
  const handle = await connectDatabase({ url: database.url });
  apiKey = (await createApiKey(handle.db, { appId: "edge", name: "worker-test" })).key;
  await handle.close();
  // Miniflare's Hyperdrive wants a password; the test server trusts local connections anyway.
  const url = new URL(database.url as string);
  url.password = url.password || "postgres";
  return url.toString();
}

/** What wrangler and the Worker printed (its logs), shown when a test fails. */
let workerOutput = "";
beforeEach(() => onTestFailed(() => console.error(`wrangler dev printed:\n${workerOutput}`)));

beforeAll(async () => {
  if (!onPostgres) return;
  const connectionString = await startDatabase();

  inngestCloud = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      if (request.url?.startsWith("/e/")) received.push(...(JSON.parse(body) as typeof received));
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: [], status: 200 }));
    });
  });
  await new Promise<void>((resolve) => inngestCloud.listen(0, "127.0.0.1", resolve));
  const inngestUrl = `http://127.0.0.1:${(inngestCloud.address() as AddressInfo).port}`;

  const vars = {
    INNGEST_SIGNING_KEY: SIGNING_KEY,
    INNGEST_EVENT_KEY: "test-event-key",
    INNGEST_BASE_URL: inngestUrl,
    EMIT_COALESCE_WINDOW: "1ms",
    LIVE_POLL_INTERVAL: "100ms",
    LOG_LEVEL: "warn",
  };
  wrangler = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(workerPort),
      "--ip",
      "127.0.0.1",
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    {
      env: {
        ...process.env,
        CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_HYPERDRIVE: connectionString,
        WRANGLER_SEND_METRICS: "false",
        CI: "true",
      },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: npx → wrangler → workerd must all stop with the test.
      detached: true,
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wrangler dev did not start:\n${workerOutput}`)), 150_000);
    const watch = (chunk: Buffer) => {
      workerOutput += chunk.toString();
      if (workerOutput.includes("Ready on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    wrangler.stdout?.on("data", watch);
    wrangler.stderr?.on("data", watch);
    wrangler.on("exit", (code) => reject(new Error(`wrangler dev exited with ${code}:\n${workerOutput}`)));
  });
});

afterAll(async () => {
  if (wrangler?.pid) {
    const exited = new Promise((resolve) => wrangler.once("exit", resolve));
    process.kill(-wrangler.pid, "SIGTERM");
    await exited;
  }
  await new Promise<void>((resolve) => inngestCloud?.close(() => resolve()));
  await database?.drop();
});

async function request(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${apiKey}` },
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : null };
}

/** Signs a request body the way Inngest Cloud does: HMAC-SHA256(key without prefix, canonical JSON + timestamp). */
async function inngestSignature(body: unknown, key = SIGNING_KEY): Promise<string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const hmacKey = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key.replace(/^signkey-\w+-/, "")),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode((canonicalize(body) as string) + timestamp));
  return `t=${timestamp}&s=${Buffer.from(mac).toString("hex")}`;
}

/** A server-sent-event stream read event by event. */
async function openLive(path: string) {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const seen: { event: string; data: any }[] = [];
  return {
    seen,
    /** Reads until an event matches, failing after `timeoutMs`. */
    async until(match: (event: { event: string; data: any }) => boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = seen.find(match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching live event; saw ${JSON.stringify(seen.map((e) => e.event))}`);
        const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), left))]);
        if (!chunk || chunk.done) continue;
        buffered += decoder.decode(chunk.value, { stream: true });
        let end = buffered.indexOf("\n\n");
        while (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data) seen.push({ event, data: JSON.parse(data) });
          end = buffered.indexOf("\n\n");
        }
      }
    },
    close: () => reader.cancel(),
  };
}

describe.runIf(onPostgres)("the Worker in workerd", () => {
  it("serves the dashboard as static assets, and memory health with the decay curve's parameters", async () => {
    const page = await fetch(`${base}/dashboard?user_id=eve`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("memory dashboard");
    expect(html).toContain('src="/dashboard.js"');
    const script = await fetch(`${base}/dashboard.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain("/v1/memories/health");
    const health = await request("GET", "/v1/memories/health?user_id=eve");
    expect(health.status).toBe(200);
    expect(health.body.decay).toEqual({ lambda: 0.1, threshold: 0.1 });
  });

  it("appends events over Hyperdrive-style TCP, emits to Inngest, runs a signed pipeline call, streams its progress live and assembles a context window", async () => {
    // A live stream holds its request's connection for as long as it is open: the job the signed
    // step below starts is read from the database by the stream's own poll.
    const live = await openLive("/v1/live?user_id=eve");
    await live.until((event) => event.data.name === "subscribed");
    expect((await request("POST", "/v1/sessions", { user_id: "eve" }, {})).status).toBe(401);
    const health = await request("GET", "/healthz", undefined, {});
    expect(health.body).toMatchObject({ status: "ok", database: { driver: "pg" }, embedding_model: "hashing-256" });

    const session = await request("POST", "/v1/sessions", { user_id: "eve" });
    expect(session.status).toBe(201);
    expect(session.body.app_id).toBe("edge");
    const appended = await request("POST", `/v1/sessions/${session.body.id}/events`, {
      events: [
        { type: "message", role: "user", content: "I am moving to Porto next spring." },
        { type: "message", role: "assistant", content: "Porto is lovely in spring." },
      ],
    });
    expect(appended.status).toBe(201);
    expect(appended.body.last_seq).toBe(2);
    // The emit went out after the response, through waitUntil.
    const deadline = Date.now() + 10_000;
    while (!received.some((event) => event.name === "memory/session.events-appended") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const emitted = received.find((event) => event.name === "memory/session.events-appended");
    expect(emitted?.data).toMatchObject({ app_id: "edge", user_id: "eve", session_id: session.body.id, last_seq: 2 });

    // Inngest Cloud calls the fast replay with a signed request; the first step reads the log.
    const call = {
      event: emitted,
      events: [emitted],
      steps: {},
      ctx: {
        run_id: "01JTESTRUN0000000000000000",
        attempt: 0,
        disable_immediate_execution: true,
        use_api: false,
        stack: { stack: [], current: 0 },
      },
      version: 1,
    };
    const path = "/api/inngest?fnId=memory-pipeline-fast-replay&stepId=step";
    const forged = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-inngest-signature": await inngestSignature(call, "signkey-test-someoneelse") },
      body: JSON.stringify(call),
    });
    expect(forged.status).toBe(401);
    // One signed call as Inngest Cloud makes it: the function with what earlier steps returned.
    const signedCall = async (memo: Record<string, { data: unknown }>, stepId = "step") => {
      const body = { ...call, steps: memo, ctx: { ...call.ctx, stack: { stack: Object.keys(memo), current: Object.keys(memo).length } } };
      const response = await fetch(`${base}/api/inngest?fnId=memory-pipeline-fast-replay&stepId=${stepId}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-inngest-signature": await inngestSignature(body) },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(206);
      return (await response.json()) as { op: string; id: string; name?: string; data?: unknown }[];
    };
    // First the stage's dead-letter check, then the first step that reads the log; Inngest asks for
    // each planned step and the Worker runs it against the database.
    const [check] = await signedCall({});
    expect(check).toMatchObject({ op: "StepPlanned", name: "check-parked" });
    const [checked] = await signedCall({}, check?.id);
    expect(checked).toMatchObject({ op: "StepRun", name: "check-parked", data: false });
    const memo = { [check?.id as string]: { data: false } };
    const [planned] = await signedCall(memo);
    expect(planned).toMatchObject({ op: "StepPlanned", name: "load-backlog-0" });
    const ops = await signedCall(memo, planned?.id);
    expect(ops[0], JSON.stringify(ops[0])).toMatchObject({ op: "StepRun", name: "load-backlog-0" });
    const backlog = ops[0]?.data as { toSeq: number; events: { content: string }[] };
    expect(backlog.toSeq).toBe(2);
    expect(backlog.events.map((event) => event.content)).toEqual(["I am moving to Porto next spring.", "Porto is lovely in spring."]);

    const progress = await live.until((event) => event.event === "ACTIVITY_SNAPSHOT");
    expect(JSON.stringify(progress.data)).toContain("fast_replay");

    const context = await request("POST", "/v1/context", {
      user_id: "eve",
      session_id: session.body.id,
      query: "Where am I moving?",
      max_tokens: 400,
    });
    expect(context.status).toBe(200);
    expect(context.body.prompt).toContain("Porto");
    expect(context.body.total_tokens).toBeLessThanOrEqual(400);
    // Counted by the tokenizer the Worker built from its static assets: the same count as on Node.
    expect(context.body.total_tokens).toBe(o200kTokenizer.count(context.body.prompt));
    // The context request's budget reached the stream opened by another request: one app per isolate.
    await live.until((event) => event.event === "STATE_DELTA");
    await live.close();
    // The stream's connection was released: the Worker goes on serving.
    expect((await request("GET", "/healthz", undefined, {})).status).toBe(200);

    // A search ranks by vector too: its statement carries settings of its own, sent over the
    // request's connection as one simple query (the settings and the statement).
    const created = await request("POST", "/v1/memories", {
      user_id: "eve",
      type: "insight",
      content: "Eve's sister Ana runs a bakery in Braga.",
    });
    expect(created.status).toBe(201);
    const found = await request("POST", "/v1/memories/search", { user_id: "eve", query: "sister bakery Braga", explain: true });
    expect(found.status).toBe(200);
    const [best] = found.body.memories as { content: string; signals: { vector_rank: number | null } }[];
    expect(best?.content).toContain("Braga");
    expect(best?.signals.vector_rank).toBe(1);
  });

  it("meters every one of concurrent searches after their answers, each batch written through the connection of the request that opened it", async () => {
    expect((await request("POST", "/v1/sessions", { user_id: "uma" })).status).toBe(201);
    const searches = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => request("POST", "/v1/memories/search", { user_id: "uma", query: `what happened on day ${n}?` })),
    );
    expect(searches.map((search) => search.status)).toEqual([200, 200, 200, 200, 200]);
    const queryCalls = async () => {
      const usage = await request("GET", "/v1/usage?user_id=uma");
      return (usage.body.days as { stage: string; calls: number }[])
        .filter((day) => day.stage === "query")
        .reduce((sum, day) => sum + day.calls, 0);
    };
    await waitUntil(async () => (await queryCalls()) >= 5, "uma's five query embeddings metered");
    expect(await queryCalls()).toBe(5);
  });
});
