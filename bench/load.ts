import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { serve } from "@hono/node-server";
import type { Runtime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { pipelineLag } from "../src/pipeline/status/pipeline-lag.js";
import type { EmbeddingQueueStats } from "../src/providers/types.js";
import { liveHeapMiB } from "./live-heap.js";
import { type Operation, type PhaseRequest, type PhaseResult, pick, SENTENCES } from "./load-clients.js";
import { percentile } from "./stats.js";

const json = { "content-type": "application/json" };
const USERS = 10;

interface Rate {
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Event-loop delay of the service's thread over a phase (ms): what every request waited on top of its own work. */
interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export interface LoadReport {
  clients: number;
  seconds: number;
  /** Floors, each measured alone in the same run just before the load. */
  floors: {
    /** `GET /healthz` (one trivial query) from the same clients: the stack's floor. */
    healthz: Rate;
    /** The embedder alone, as many callers embedding one query each: what context windows can reach. */
    embedder: Rate;
    /** Appends alone from the same clients, the pipeline running. */
    append: Rate;
    /** After the appends alone: how long the pipeline took to digest them (ms). */
    appendDrainMs: number;
  };
  operations: (Rate & { name: Exclude<Operation, "healthz"> })[];
  errors: number;
  firstErrors: string[];
  loopDelay: { load: LoopDelay; drain: LoopDelay };
  /** The pipeline's lag sampled every 2 s during the load (s): replay (events) and embedding (memories). */
  lag: { replayMaxSeconds: number; embeddingMaxSeconds: number; replayAtEndSeconds: number; embeddingAtEndSeconds: number };
  /** Query embeddings made during the load per context or search request (1: the cache answered none). */
  queryEmbeddingsPerRead: number;
  /** The embedder's queue over the load: mean wait per priority (ms), and the longest a background text waited. */
  embedderQueue: { queryMeanWaitMs: number; backgroundMeanWaitMs: number; backgroundOldestMaxMs: number; slots: number } | undefined;
  /**
   * RSS and heap (MiB), median of the samples in the first and in the last fifth of the run; and
   * the heap live after a full collection at half time and after the drain (flat when memory is).
   */
  memory: { rssEarly: number; rssLate: number; heapEarly: number; heapLate: number; liveAtHalf: number; liveAfterDrain: number };
  /** After the load: how long the pipeline took to replay, reflect and embed what was appended (ms). */
  drainMs: number;
  appended: number;
}

/**
 * `npm run bench -- --load`: the service on a local port and `clients` concurrent clients in a
 * worker thread (their work stays off the service's event loop), for one of ten users each:
 * floors first (`/healthz`, the embedder alone, appends alone), then `seconds` of mixed traffic
 * (append a turn to its own session / context window / search) with the pipeline running beside
 * it as it does in service. Prints throughput and p50/p99 per operation next to the floors and
 * their ratios, the event-loop delay, the pipeline's lag during the load and its drain after.
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
  await settleAll(runtime, users);

  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients = new Worker(new URL("./load-clients.js", import.meta.url));
  try {
    return await measure(runtime, users, options, (request) => runInWorker(clients, { ...request, base }));
  } finally {
    await clients.terminate();
    server.close();
  }
}

function runInWorker(worker: Worker, request: PhaseRequest): Promise<PhaseResult> {
  const answered = once(worker, "message").then(([result]) => result as PhaseResult);
  worker.postMessage(request);
  return answered;
}

async function measure(
  runtime: Runtime,
  users: string[],
  options: { clients: number; seconds: number },
  phase: (request: Omit<PhaseRequest, "base">) => Promise<PhaseResult>,
): Promise<LoadReport> {
  const floorSeconds = Math.max(3, Math.round(options.seconds / 6));
  const sessions = await Promise.all(Array.from({ length: options.clients }, (_, i) => createSession(runtime, pick(users, i))));
  const request = { clients: options.clients, sessions, users };

  const healthz = rateOf(await phase({ ...request, phase: "healthz", seconds: floorSeconds }), "healthz", floorSeconds);
  const embedder = await embedderAlone(runtime, options.clients, floorSeconds);
  const appendOnly = await phase({ ...request, phase: "append", seconds: floorSeconds });
  const appendDrainStarted = performance.now();
  await settleAll(runtime, users);
  const appendDrainMs = performance.now() - appendDrainStarted;

  const queueBefore = runtime.providers.embedder.queue?.stats();
  const memory: { rss: number; heap: number }[] = [];
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    memory.push({ rss: usage.rss / 2 ** 20, heap: usage.heapUsed / 2 ** 20 });
  }, 500);
  const lagSamples: { replay: number; embedding: number }[] = [];
  let backgroundOldestMaxMs = 0;
  const lagSampler = setInterval(() => {
    backgroundOldestMaxMs = Math.max(backgroundOldestMaxMs, runtime.providers.embedder.queue?.stats().waiting.background.oldestWaitMs ?? 0);
    void pipelineLag(runtime.database.db).then(
      (lag) => lagSamples.push({ replay: lag.replaySeconds, embedding: lag.embeddingSeconds }),
      () => undefined,
    );
  }, 2000);
  // One full collection mid-run (a pause of tens of ms for every client, once).
  let liveAtHalf = Number.NaN;
  const halfTime = setTimeout(() => {
    liveAtHalf = liveHeapMiB();
  }, options.seconds * 500);
  const loadDelay = monitorEventLoopDelay({ resolution: 10 });
  loadDelay.enable();
  const mixed = await phase({ ...request, phase: "mixed", seconds: options.seconds });
  loadDelay.disable();
  clearInterval(sampler);
  clearInterval(lagSampler);
  clearTimeout(halfTime);
  const queueAfter = runtime.providers.embedder.queue?.stats();
  const lagAtEnd = await pipelineLag(runtime.database.db);

  const drainDelay = monitorEventLoopDelay({ resolution: 10 });
  drainDelay.enable();
  const drainStarted = performance.now();
  await runtime.background.settle();
  await settleAll(runtime, users);
  const drainMs = performance.now() - drainStarted;
  drainDelay.disable();
  const liveAfterDrain = liveHeapMiB();

  const operations = (["append", "context", "search"] as const).map((name) => ({ name, ...rateOf(mixed, name, options.seconds) }));
  const reads = (operations[1]?.count ?? 0) + (operations[2]?.count ?? 0);
  const fifth = Math.max(1, Math.floor(memory.length / 5));
  const median = (values: number[]) => percentile(values, 50);
  return {
    clients: options.clients,
    seconds: options.seconds,
    floors: { healthz, embedder, append: rateOf(appendOnly, "append", floorSeconds), appendDrainMs },
    operations,
    errors: operations.reduce((sum, op) => sum + op.errors, 0),
    firstErrors: mixed.firstErrors,
    loopDelay: { load: delayOf(loadDelay), drain: delayOf(drainDelay) },
    lag: {
      replayMaxSeconds: Math.max(0, ...lagSamples.map((sample) => sample.replay)),
      embeddingMaxSeconds: Math.max(0, ...lagSamples.map((sample) => sample.embedding)),
      replayAtEndSeconds: lagAtEnd.replaySeconds,
      embeddingAtEndSeconds: lagAtEnd.embeddingSeconds,
    },
    queryEmbeddingsPerRead:
      queueBefore && queueAfter ? (queueAfter.served.query.texts - queueBefore.served.query.texts) / Math.max(1, reads) : Number.NaN,
    embedderQueue: queueBefore && queueAfter ? queueReport(queueBefore, queueAfter, backgroundOldestMaxMs) : undefined,
    memory: {
      rssEarly: median(memory.slice(0, fifth).map((m) => m.rss)),
      rssLate: median(memory.slice(-fifth).map((m) => m.rss)),
      heapEarly: median(memory.slice(0, fifth).map((m) => m.heap)),
      heapLate: median(memory.slice(-fifth).map((m) => m.heap)),
      liveAtHalf,
      liveAfterDrain,
    },
    drainMs,
    appended: mixed.appended,
  };
}

/** As many callers as clients, each embedding one new query after another, for `seconds`. */
async function embedderAlone(runtime: Runtime, callers: number, seconds: number): Promise<Rate> {
  const samples: number[] = [];
  let errors = 0;
  let n = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await runtime.providers.embedder.embed([`What did the user say about item ${n++}?`], { priority: "query" }).catch(() => errors++);
        samples.push(performance.now() - started);
      }
    }),
  );
  return { count: samples.length, perSecond: samples.length / seconds, p50: percentile(samples, 50), p99: percentile(samples, 99), errors };
}

function rateOf(result: PhaseResult, operation: Operation, seconds: number): Rate {
  const samples = result.samples[operation];
  return {
    count: samples.length,
    perSecond: samples.length / seconds,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    errors: result.failures[operation],
  };
}

function delayOf(histogram: ReturnType<typeof monitorEventLoopDelay>): LoopDelay {
  const ms = (ns: number) => ns / 1e6;
  return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
}

function queueReport(before: EmbeddingQueueStats, after: EmbeddingQueueStats, backgroundOldestMaxMs: number) {
  const mean = (priority: "query" | "background") => {
    const texts = after.served[priority].texts - before.served[priority].texts;
    return texts === 0 ? 0 : (after.served[priority].waitMs - before.served[priority].waitMs) / texts;
  };
  return { queryMeanWaitMs: mean("query"), backgroundMeanWaitMs: mean("background"), backgroundOldestMaxMs, slots: after.slots };
}

async function settleAll(runtime: Runtime, users: string[]): Promise<void> {
  for (const userId of users) await waitForSettled(runtime.app, userId, { intervalMs: 200 });
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

/** The report as the bench prints it: each figure beside its floor, and the ratio the targets are stated in. */
export function printLoad(label: string, report: LoadReport): void {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const rate = (name: string, r: Rate) =>
    `${name.padEnd(20)} ${String(r.count).padStart(7)} ${r.perSecond.toFixed(1).padStart(7)}/s  p50 ${ms(r.p50).padStart(10)}  p99 ${ms(r.p99).padStart(10)}  errors ${r.errors}`;
  const { floors } = report;
  console.log(`\nload on ${label}: ${report.clients} clients for ${report.seconds} s, pipeline running`);
  console.log("floors, each alone:");
  console.log(rate("  GET /healthz", floors.healthz));
  console.log(rate("  embedder (queries)", floors.embedder));
  console.log(`${rate("  appends", floors.append)}  (then digested in ${(floors.appendDrainMs / 1000).toFixed(1)} s)`);
  console.log("mixed load:");
  for (const op of report.operations) console.log(rate(`  ${op.name}`, op));
  const context = report.operations.find((op) => op.name === "context") as Rate;
  const search = report.operations.find((op) => op.name === "search") as Rate;
  const append = report.operations.find((op) => op.name === "append") as Rate;
  const reads = context.perSecond + search.perSecond;
  console.log(
    `ratios: (context + search)/s ÷ embedder alone ${(reads / floors.embedder.perSecond).toFixed(2)} (context alone ${(context.perSecond / floors.embedder.perSecond).toFixed(2)}; target ≥ 0.8)` +
      ` · append p99 ÷ appends alone ${(append.p99 / floors.append.p99).toFixed(2)} · append p99 ÷ healthz p99 ${(append.p99 / floors.healthz.p99).toFixed(1)}`,
  );
  const total = report.operations.reduce((sum, op) => sum + op.count, 0);
  console.log(
    `total ${(total / report.seconds).toFixed(1)} requests/s, errors ${report.errors} (target 0)${report.firstErrors.map((e) => `\n  ${e}`).join("")}`,
  );
  const { load, drain } = report.loopDelay;
  console.log(
    `event-loop delay: under load p50 ${ms(load.p50)} p99 ${ms(load.p99)} max ${ms(load.max)}; during the drain p99 ${ms(drain.p99)} max ${ms(drain.max)} (target p99 ≤ 100 ms)`,
  );
  console.log(
    `pipeline lag during the load: replay ≤ ${report.lag.replayMaxSeconds.toFixed(1)} s, embedding ≤ ${report.lag.embeddingMaxSeconds.toFixed(1)} s; at its end ${report.lag.replayAtEndSeconds.toFixed(1)} s / ${report.lag.embeddingAtEndSeconds.toFixed(1)} s; drained ${(report.drainMs / 1000).toFixed(1)} s after the load stopped (target ≤ 10 s)`,
  );
  const queue = report.embedderQueue;
  console.log(
    `query embeddings per read ${report.queryEmbeddingsPerRead.toFixed(2)} (1.00: the query cache answered none)` +
      (queue
        ? `; embedder queue (${queue.slots} slots): queries waited ${ms(queue.queryMeanWaitMs)} on average, background ${ms(queue.backgroundMeanWaitMs)} (longest seen ${ms(queue.backgroundOldestMaxMs)})`
        : ""),
  );
  const growth = (report.memory.rssLate / report.memory.rssEarly - 1) * 100;
  console.log(
    `memory: RSS ${report.memory.rssEarly.toFixed(0)} → ${report.memory.rssLate.toFixed(0)} MiB (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} %), heap ${report.memory.heapEarly.toFixed(0)} → ${report.memory.heapLate.toFixed(0)} MiB (first vs last fifth); live heap after a full GC ${report.memory.liveAtHalf.toFixed(0)} MiB at half time → ${report.memory.liveAfterDrain.toFixed(0)} MiB after the drain`,
  );
}
