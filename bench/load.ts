import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Runtime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { liveHeapMiB } from "./live-heap.js";
import { percentile } from "./stats.js";

const json = { "content-type": "application/json" };
const USERS = 10;
const SENTENCES = [
  "I moved to Lisbon last spring and I cycle along the river every morning.",
  "My sister Ana is visiting next week, we want to go hiking in Sintra.",
  "I started learning the cello in January, practice is going slowly.",
  "Work has been busy: we ship the new billing system on Friday.",
  "I'm allergic to peanuts, so please never suggest satay.",
  "We adopted a dog named Biscuit, he loves the beach.",
  "I switched to decaf because coffee kept me awake.",
  "My daughter Maya starts school in September.",
];
const QUERIES = [
  "Where does the user live?",
  "What does the user do on weekends?",
  "Any food allergies?",
  "Who is in the user's family?",
  "What instrument is the user learning?",
  "What is happening at work this week?",
];
type Operation = "append" | "context" | "search";
/** The mix: half the requests append a turn, the rest read (context windows more often than search). */
const MIX: [Operation, number][] = [
  ["append", 0.5],
  ["context", 0.3],
  ["search", 0.2],
];

export interface LoadReport {
  clients: number;
  seconds: number;
  /** The same clients asking `GET /healthz` (one trivial query) for a while first: the stack's floor. */
  floor: { perSecond: number; p50: number; p99: number };
  operations: { name: Operation; count: number; perSecond: number; p50: number; p99: number; errors: number }[];
  errors: number;
  firstErrors: string[];
  /**
   * RSS and heap (MiB), median of the samples in the first and in the last fifth of the run; and
   * the heap live after a full collection at half time and after the drain (flat when memory is).
   */
  memory: { rssEarly: number; rssLate: number; heapEarly: number; heapLate: number; liveAtHalf: number; liveAfterDrain: number };
  /** After the load: how long the pipeline took to replay, reflect and embed what was appended. */
  drainMs: number;
  appended: number;
}

const pick = <T>(items: readonly T[], index: number) => items[index % items.length] as T;

/**
 * `npm run bench -- --load`: `clients` concurrent clients for `seconds`, each looping over a mixed
 * workload (append a turn to its own session / context window / search) for one of ten users, with
 * the pipeline running beside it, as it does in service. Latency per operation, throughput, errors
 * (any status other than the expected one) and memory over the run, next to a floor measured by the
 * same clients on `/healthz` just before. The clients speak HTTP to the service on a local port, as
 * real clients do, so request parsing counts and the pipeline's timers get their turns between requests.
 */
export async function benchLoad(runtime: Runtime, options: { clients: number; seconds: number }): Promise<LoadReport> {
  const app = runtime.app;
  const users = Array.from({ length: USERS }, (_, i) => `load-user-${i}`);
  // Each user starts with a conversation the pipeline has already digested, so reads find memories.
  for (const [index, userId] of users.entries()) {
    const sessionId = await createSession(runtime, userId);
    await appendTurn(runtime, sessionId, SENTENCES.map((_, i) => pick(SENTENCES, i + index)).join(" "));
    await app.request(`/v1/sessions/${sessionId}/end`, { method: "POST" });
  }
  for (const userId of users) await waitForSettled(app, userId, { intervalMs: 200 });

  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return await measure(runtime, users, options, (path, init) => fetch(`${base}${path}`, init));
  } finally {
    server.close();
  }
}

async function measure(
  runtime: Runtime,
  users: string[],
  options: { clients: number; seconds: number },
  send: (path: string, init?: RequestInit) => Promise<Response>,
): Promise<LoadReport> {
  const app = runtime.app;
  const floorSamples: number[] = [];
  const floorSeconds = Math.max(3, Math.round(options.seconds / 6));
  await runClients(options.clients, floorSeconds, async () => {
    const started = performance.now();
    const response = await send("/healthz");
    await response.arrayBuffer();
    floorSamples.push(performance.now() - started);
  });

  const sessions = await Promise.all(Array.from({ length: options.clients }, (_, i) => createSession(runtime, pick(users, i))));
  const samples: Record<Operation, number[]> = { append: [], context: [], search: [] };
  const failures: Record<Operation, number> = { append: 0, context: 0, search: 0 };
  const firstErrors: string[] = [];
  const memory: { rss: number; heap: number }[] = [];
  let sampledAt = 0;
  let appended = 0;
  let request = 0;
  // One full collection mid-run (a pause of tens of ms for every client, once).
  let liveAtHalf = Number.NaN;
  const halfTime = setTimeout(() => {
    liveAtHalf = liveHeapMiB();
  }, options.seconds * 500);
  await runClients(options.clients, options.seconds, async (client) => {
    const n = request++;
    if (performance.now() - sampledAt >= 500) {
      sampledAt = performance.now();
      const usage = process.memoryUsage();
      memory.push({ rss: usage.rss / 2 ** 20, heap: usage.heapUsed / 2 ** 20 });
    }
    const operation = chooseOperation((n * 0.618034) % 1);
    const userId = pick(users, client);
    const started = performance.now();
    let response: Response;
    if (operation === "append") {
      const sessionId = sessions[client] as string;
      response = await send(`/v1/sessions/${sessionId}/events`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ events: [{ type: "message", role: "user", content: `${pick(SENTENCES, n)} (${n})` }] }),
      });
    } else {
      const path = operation === "context" ? "/v1/context" : "/v1/memories/search";
      // A text of its own per request: the query vector cache must not answer a load test.
      const query = `${pick(QUERIES, n)} (${n})`;
      const body = operation === "context" ? { user_id: userId, query, max_tokens: 1000 } : { user_id: userId, query, limit: 10 };
      response = await send(path, { method: "POST", headers: json, body: JSON.stringify(body) });
    }
    const text = await response.text();
    samples[operation].push(performance.now() - started);
    const expected = operation === "append" ? 201 : 200;
    if (response.status !== expected) {
      failures[operation]++;
      if (firstErrors.length < 5) firstErrors.push(`${operation} ${response.status}: ${text.slice(0, 200)}`);
    } else if (operation === "append") appended++;
  });

  const drainStarted = performance.now();
  await runtime.background.settle();
  for (const userId of users) await waitForSettled(app, userId, { intervalMs: 200 });
  const drainMs = performance.now() - drainStarted;
  clearTimeout(halfTime);
  const liveAfterDrain = liveHeapMiB();

  const fifth = Math.max(1, Math.floor(memory.length / 5));
  const median = (values: number[]) => percentile(values, 50);
  return {
    clients: options.clients,
    seconds: options.seconds,
    floor: { perSecond: floorSamples.length / floorSeconds, p50: percentile(floorSamples, 50), p99: percentile(floorSamples, 99) },
    operations: (Object.keys(samples) as Operation[]).map((name) => ({
      name,
      count: samples[name].length,
      perSecond: samples[name].length / options.seconds,
      p50: percentile(samples[name], 50),
      p99: percentile(samples[name], 99),
      errors: failures[name],
    })),
    errors: failures.append + failures.context + failures.search,
    firstErrors,
    memory: {
      rssEarly: median(memory.slice(0, fifth).map((m) => m.rss)),
      rssLate: median(memory.slice(-fifth).map((m) => m.rss)),
      heapEarly: median(memory.slice(0, fifth).map((m) => m.heap)),
      heapLate: median(memory.slice(-fifth).map((m) => m.heap)),
      liveAtHalf,
      liveAfterDrain,
    },
    drainMs,
    appended,
  };
}

function chooseOperation(draw: number): Operation {
  let total = 0;
  for (const [operation, share] of MIX) {
    total += share;
    if (draw < total) return operation;
  }
  return "append";
}

/** `clients` loops, each running `work` back to back until `seconds` have passed. */
async function runClients(clients: number, seconds: number, work: (client: number) => Promise<void>): Promise<void> {
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline) await work(client);
    }),
  );
}

async function createSession(runtime: Runtime, userId: string): Promise<string> {
  const response = await runtime.app.request("/v1/sessions", { method: "POST", headers: json, body: JSON.stringify({ user_id: userId }) });
  if (response.status !== 201) throw new Error(`create session: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function appendTurn(runtime: Runtime, sessionId: string, content: string): Promise<void> {
  const response = await runtime.app.request(`/v1/sessions/${sessionId}/events`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ events: [{ type: "message", role: "user", content, idempotency_key: randomUUID() }] }),
  });
  if (response.status !== 201) throw new Error(`append: ${response.status} ${await response.text()}`);
}

/** The report as the bench prints it. */
export function printLoad(label: string, report: LoadReport): void {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`\nload on ${label}: ${report.clients} clients for ${report.seconds} s, pipeline running`);
  console.log(
    `floor (GET /healthz, same clients): ${report.floor.perSecond.toFixed(0)}/s, p50 ${ms(report.floor.p50)}, p99 ${ms(report.floor.p99)}`,
  );
  for (const op of report.operations)
    console.log(
      `${op.name.padEnd(8)} ${String(op.count).padStart(7)} requests ${op.perSecond.toFixed(1).padStart(7)}/s  p50 ${ms(op.p50).padStart(10)}  p99 ${ms(op.p99).padStart(10)}  p99/floor p99 ${(op.p99 / report.floor.p99).toFixed(1)}  errors ${op.errors}`,
    );
  const total = report.operations.reduce((sum, op) => sum + op.count, 0);
  console.log(
    `total ${(total / report.seconds).toFixed(1)} requests/s, errors ${report.errors} (target 0)${report.firstErrors.map((e) => `\n  ${e}`).join("")}`,
  );
  const growth = (report.memory.rssLate / report.memory.rssEarly - 1) * 100;
  console.log(
    `memory: RSS ${report.memory.rssEarly.toFixed(0)} → ${report.memory.rssLate.toFixed(0)} MiB (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} %), heap ${report.memory.heapEarly.toFixed(0)} → ${report.memory.heapLate.toFixed(0)} MiB (first vs last fifth of the run)`,
  );
  console.log(`pipeline drained the ${report.appended} appended turns ${(report.drainMs / 1000).toFixed(1)} s after the load stopped`);
  console.log(
    `live heap (after a full GC): ${report.memory.liveAtHalf.toFixed(0)} MiB at half time → ${report.memory.liveAfterDrain.toFixed(0)} MiB after the drain`,
  );
}
