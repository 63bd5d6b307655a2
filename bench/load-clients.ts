import { parentPort } from "node:worker_threads";

/**
 * The load bench's clients, in a worker thread of their own: their requests, JSON and timers do not
 * run on the service's event loop, as a real client's would not (they still share the cores).
 * Told a phase, they loop for its seconds and answer with their latency samples.
 */

export type Operation = "append" | "context" | "search" | "healthz";

export interface PhaseRequest {
  base: string;
  /** `healthz` (the stack's floor), `append` (appends alone), `mixed` (append / context / search). */
  phase: "healthz" | "append" | "mixed";
  clients: number;
  seconds: number;
  /** One session per client, and the user it belongs to. */
  sessions: string[];
  users: string[];
}

export interface PhaseResult {
  samples: Record<Operation, number[]>;
  failures: Record<Operation, number>;
  firstErrors: string[];
  /** Appends answered 201. */
  appended: number;
}

const json = { "content-type": "application/json" };
export const SENTENCES = [
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
/** The mix: half the requests append a turn, the rest read (context windows more often than search). */
const MIX: [Exclude<Operation, "healthz">, number][] = [
  ["append", 0.5],
  ["context", 0.3],
  ["search", 0.2],
];

export const pick = <T>(items: readonly T[], index: number) => items[index % items.length] as T;

/** Runs one phase: `clients` loops, each sending back to back until `seconds` have passed. */
export async function runPhase(request: PhaseRequest): Promise<PhaseResult> {
  const result: PhaseResult = {
    samples: { append: [], context: [], search: [], healthz: [] },
    failures: { append: 0, context: 0, search: 0, healthz: 0 },
    firstErrors: [],
    appended: 0,
  };
  let sent = 0;
  const deadline = performance.now() + request.seconds * 1000;
  await Promise.all(
    Array.from({ length: request.clients }, async (_, client) => {
      while (performance.now() < deadline) {
        const n = sent++;
        const operation = request.phase === "mixed" ? chooseOperation((n * 0.618034) % 1) : request.phase;
        const started = performance.now();
        const response = await send(request, operation, client, n).catch((error: unknown) => error as Error);
        const text = response instanceof Response ? await response.text().catch(() => "") : "";
        result.samples[operation].push(performance.now() - started);
        const expected = operation === "append" ? 201 : 200;
        if (!(response instanceof Response) || response.status !== expected) {
          result.failures[operation]++;
          const status = response instanceof Response ? response.status : response.message;
          if (result.firstErrors.length < 5) result.firstErrors.push(`${operation} ${status}: ${text.slice(0, 200)}`);
        } else if (operation === "append") result.appended++;
      }
    }),
  );
  return result;
}

function send(request: PhaseRequest, operation: Operation, client: number, n: number): Promise<Response> {
  const url = (path: string) => `${request.base}${path}`;
  if (operation === "healthz") return fetch(url("/healthz"));
  if (operation === "append") {
    return fetch(url(`/v1/sessions/${pick(request.sessions, client)}/events`), {
      method: "POST",
      headers: json,
      body: JSON.stringify({ events: [{ type: "message", role: "user", content: `${pick(SENTENCES, n)} (${n})` }] }),
    });
  }
  // A text of its own per request: the query vector cache must not answer a load test.
  const query = `${pick(QUERIES, n)} (${n})`;
  const userId = pick(request.users, client);
  const body = operation === "context" ? { user_id: userId, query, max_tokens: 1000 } : { user_id: userId, query, limit: 10 };
  return fetch(url(operation === "context" ? "/v1/context" : "/v1/memories/search"), {
    method: "POST",
    headers: json,
    body: JSON.stringify(body),
  });
}

function chooseOperation(draw: number): Exclude<Operation, "healthz"> {
  let total = 0;
  for (const [operation, share] of MIX) {
    total += share;
    if (draw < total) return operation;
  }
  return "append";
}

parentPort?.on("message", (request: PhaseRequest) => {
  void runPhase(request).then((result) => parentPort?.postMessage(result));
});
