import { sql } from "drizzle-orm";
import type { Runtime } from "../functions/node-runtime.js";
import { queryRows } from "../src/db/database.js";
import { type Summary, summarize, time } from "./stats.js";

export const TOPICS = [
  "cats",
  "hiking",
  "jazz",
  "Lisbon",
  "marathon",
  "cello",
  "gardening",
  "chess",
  "sailing",
  "pottery",
  "coffee",
  "tea",
  "Berlin",
  "photography",
  "baking",
  "cycling",
  "poetry",
  "astronomy",
  "surfing",
  "yoga",
];
const json = { "content-type": "application/json" };

/**
 * Component `g` of row `i`'s vector: a topic, a subtopic and a detail direction (sinusoids of
 * different frequencies) at falling weights, plus a little noise. Real embeddings cluster like this;
 * uniformly random vectors, where every distance is nearly equal, are the worst case of any
 * approximate index and say nothing about real data. `phase` shifts topic and subtopic, as
 * `seedMemories` does per user.
 */
export const clusteredVector = (topic: number, subtopic: number, detail: number, g: number, noise: number, phase = 0) =>
  Math.sin(g * topic + phase) + 0.5 * Math.sin(g * subtopic + 1 + phase) + 0.25 * Math.sin(g * detail + 2) + noise;
/** `clusteredVector` in SQL, for row `i` and component `g`, its topic and subtopic shifted by `phase`. */
const clusteredComponent = (phase: number) =>
  sql`sin(g * (1 + i % 20) + ${phase}::float8) + 0.5 * sin(g * (21 + (i / 20) % 20) + 1 + ${phase}::float8) + 0.25 * sin(g * (41 + i % 397) + 2) + (random() - 0.5) * 0.1`;

/**
 * Fills one user with `count` turn memories (or facts, `kind`; clustered 512-d vectors labelled with the embedder's
 * model, texts over 20 topics) straight in SQL, so building 100K rows takes seconds, not hours
 * of embedding. Users seeded with different `phase`s have vectors of their own; with the same
 * phase every user's memory i is a near-duplicate of every other user's, the worst case of a
 * filtered index search. `analyze: false` leaves ANALYZE to the caller (once after many users).
 */
export async function seedMemories(
  runtime: Runtime,
  userId: string,
  count: number,
  model: string,
  options: { phase?: number; analyze?: boolean; kind?: { type: "episodic" | "semantic"; subtype: string; label: string } } = {},
): Promise<void> {
  const kind = options.kind ?? { type: "episodic", subtype: "turn", label: "Turn" };
  const topics = `ARRAY[${TOPICS.map((topic) => `'${topic}'`).join(",")}]`;
  for (let start = 0; start < count; start += 5000) {
    const end = Math.min(count, start + 5000);
    await runtime.database.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, importance, valid_at, embedding, embedding_model, embedded_at, metadata)
      SELECT gen_random_uuid(), 'default', ${userId}, ${kind.type}, ${kind.subtype},
             ${kind.label} || ' ' || i || ': we talked about ' || (${sql.raw(topics)})[1 + i % 20] || ' and ' || (${sql.raw(topics)})[1 + (i * 7) % 20] || ' on day ' || (i % 365),
             md5(${userId} || ${kind.type} || i), 0.3 + (i % 7) / 10.0, now() - make_interval(mins => i),
             (SELECT array_agg(${clusteredComponent(options.phase ?? 0)})::real[] FROM generate_series(1, 512) AS g)::halfvec, ${model}, now(), '{"origin": "bench"}'::jsonb
        FROM generate_series(${start}::int, ${end - 1}::int) AS i`);
  }
  // Fresh statistics, as autovacuum would leave them on a server, so the planner sees the data.
  if (options.analyze ?? true) await runtime.database.db.execute(sql`ANALYZE memories`);
}

/**
 * Embedding one query with the service's embedder, as context and search do before their vector
 * ranking: part of both figures (a worker thread with the offline model, a network call with Gemini).
 */
export const QUERY_EMBEDDING = "embedding the query alone (part of both)";
/** A context window asked again for the same message, as each step of an agent's tool loop does: the query's vector is cached. */
export const REPEATED_CONTEXT = "the same context window again (query vector cached)";

/** Concurrent clients of the throughput figure: enough to keep the embedder's interactive lane busy. */
export const THROUGHPUT_CLIENTS = 8;
/** Requests each client sends for it. */
const THROUGHPUT_REQUESTS_PER_CLIENT = 25;

export interface Throughput {
  clients: number;
  /** Searches answered per second, every client sending its next as soon as its last is answered. */
  searchPerSecond: number;
  /** The same clients embedding their queries alone: the most search could reach. */
  embedderPerSecond: number;
}

/** Requests per second of `clients` each doing `work` `THROUGHPUT_REQUESTS_PER_CLIENT` times, one after another. */
async function perSecond(clients: number, work: (client: number, request: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let request = 0; request < THROUGHPUT_REQUESTS_PER_CLIENT; request++) await work(client, request);
    }),
  );
  return (clients * THROUGHPUT_REQUESTS_PER_CLIENT) / ((performance.now() - started) / 1000);
}

/**
 * Search throughput for one user of `count` memories from `THROUGHPUT_CLIENTS` clients, each query
 * a text of its own, next to the same clients embedding their queries alone (the floor of a search's
 * work, and so the ceiling of its throughput).
 */
async function benchSearchThroughput(runtime: Runtime, userId: string, queries: string[]): Promise<Throughput> {
  const text = (client: number, request: number) => `${queries[(client + request) % queries.length]} (client ${client}, #${request})`;
  const embedderPerSecond = await perSecond(THROUGHPUT_CLIENTS, async (client, request) => {
    await runtime.providers.embedder.embed([`${text(client, request)} alone`]);
  });
  const searchPerSecond = await perSecond(THROUGHPUT_CLIENTS, async (client, request) => {
    const response = await runtime.app.request("/v1/memories/search", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ user_id: userId, query: text(client, request), limit: 10 }),
    });
    if (response.status !== 200) throw new Error(`search failed: ${await response.text()}`);
  });
  return { clients: THROUGHPUT_CLIENTS, searchPerSecond, embedderPerSecond };
}

/** Context assembly and search top-10 latency next to a raw top-10 vector query on the same data, and search throughput. */
export async function benchRetrieval(
  runtime: Runtime,
  count: number,
  iterations: number,
): Promise<{ raw: Summary; rows: Summary[]; throughput: Throughput }> {
  const userId = `bench-${count}`;
  const model = runtime.providers.embedder.model;
  await seedMemories(runtime, userId, count, model);
  const queries = TOPICS.map((topic) => `What did we say about ${topic}?`);
  const vectors = await runtime.providers.embedder.embed(queries);
  // Embedded: the first query of a user starts loading its memories into the process; the figures
  // below are the steady state after that load, which is reported on its own.
  const loading: number[] = [];
  if (runtime.residentMemories) {
    const started = performance.now();
    await runtime.app.request("/v1/memories/search", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ user_id: userId, query: "load" }),
    });
    await runtime.residentMemories.loaded({ appId: "default", userId });
    loading.push(performance.now() - started);
  }
  const raw: number[] = [];
  const embedding: number[] = [];
  const context: number[] = [];
  const repeated: number[] = [];
  const search: number[] = [];
  const slice: number[] = [];
  for (let i = 0; i < iterations + 3; i++) {
    const query = queries[i % queries.length] as string;
    const vector = `[${(vectors[i % vectors.length] as number[]).join(",")}]`;
    const rawTime = await time(() =>
      queryRows(
        runtime.database.db,
        sql`SELECT id FROM memories WHERE app_id = 'default' AND user_id = ${userId} AND embedding_model = ${model} ORDER BY embedding <=> ${vector}::halfvec LIMIT 10`,
      ),
    );
    // A text of its own each time, so nothing could answer it from a cache.
    const embeddingTime = await time(() => runtime.providers.embedder.embed([`${query} (${i})`]));
    const contextBody = JSON.stringify({ user_id: userId, query: `${query} (#${2 * i})`, max_tokens: 2000 });
    const assemble = () =>
      time(async () => {
        const response = await runtime.app.request("/v1/context", { method: "POST", headers: json, body: contextBody });
        if (response.status !== 200) throw new Error(`context failed: ${await response.text()}`);
      });
    const contextTime = await assemble();
    // The agent's next step asks again for the same message: its vector is cached.
    const repeatedTime = await assemble();
    const searchTime = await time(async () => {
      const response = await runtime.app.request("/v1/memories/search", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ user_id: userId, query: `${query} (#${2 * i + 1})`, limit: 10 }),
      });
      if (response.status !== 200) throw new Error(`search failed: ${await response.text()}`);
    });
    // Time slice: one day of episodes, somewhere in the seeded range (one memory per minute).
    const to = new Date(Date.now() - (i % 30) * 3_600_000).toISOString();
    const from = new Date(Date.parse(to) - 86_400_000).toISOString();
    const sliceTime = await time(async () => {
      const response = await runtime.app.request(`/v1/memories?user_id=${userId}&type=episodic&from=${from}&to=${to}&limit=50`);
      if (response.status !== 200) throw new Error(`time slice failed: ${await response.text()}`);
    });
    if (i < 3) continue; // warm-up
    raw.push(rawTime);
    embedding.push(embeddingTime);
    context.push(contextTime);
    repeated.push(repeatedTime);
    search.push(searchTime);
    slice.push(sliceTime);
  }
  const throughput = await benchSearchThroughput(runtime, userId, queries);
  await runtime.background.settle();
  return {
    throughput,
    raw: summarize(`raw top-10 vector query, ${count} memories (floor)`, raw),
    rows: [
      ...(loading.length ? [summarize(`load a user's memories into the process (once), ${count} memories`, loading)] : []),
      summarize(QUERY_EMBEDDING, embedding),
      summarize(`context window 2000 tokens, ${count} memories`, context),
      summarize(`${REPEATED_CONTEXT}, ${count} memories`, repeated),
      summarize(`search top-10, ${count} memories`, search),
      summarize(`time slice (1 day, 50 newest), ${count} memories`, slice),
    ],
  };
}
