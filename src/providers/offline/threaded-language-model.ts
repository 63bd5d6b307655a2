import { Worker } from "node:worker_threads";
import { z } from "zod";
import type { Extraction } from "../extraction.js";
import type { ExtractionRequest, LanguageModel, Summary, SummaryRequest } from "../types.js";
import { offlineLanguageModel } from "./offline-language-model.js";

const ReplySchema = z.union([z.object({ id: z.number(), result: z.unknown() }), z.object({ id: z.number(), error: z.string() })]);

/**
 * The shape of the worker's answers. The worker runs this build's own code, so the answer's
 * fields are what `offlineLanguageModel` returns; the check catches a reply that is not one.
 */
const SummaryShape = z.looseObject({ text: z.string(), sourceSeqs: z.array(z.number()).optional() });
const items = z.array(z.looseObject({}));
const ExtractionShape = z.looseObject({
  facts: items,
  insights: items,
  traits: items,
  entities: items,
  relations: items,
  extractor: z.looseObject({ name: z.string(), version: z.string() }),
});

type Pending = { resolve: (result: unknown) => void; reject: (error: Error) => void };

/** The offline model's module, as this file is loaded: TypeScript sources under tsx and vitest, JavaScript when built. */
const MODEL_MODULE = new URL(
  import.meta.url.endsWith(".ts") ? "./offline-language-model.ts" : "./offline-language-model.js",
  import.meta.url,
);

/**
 * The offline language model in a worker thread of its own, started on first use and again after
 * it exits, not keeping the process alive while idle: summarising and rule extraction parse and
 * tag text synchronously, and a chunk of long events would otherwise stall every request on the
 * main thread. Answers are those of `offlineLanguageModel`, which a Worker isolate runs in-process.
 *
 * @example
 * const llm = createThreadedLanguageModel();
 * const summary = await llm.summarize({ turns, maxWords: 200 });
 */
export function createThreadedLanguageModel(workerScript = new URL("./offline-model-worker.mjs", import.meta.url)): LanguageModel {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const start = (): Worker => {
    const started = new Worker(workerScript, { workerData: { moduleUrl: MODEL_MODULE.href } });
    started.on("message", (message: unknown) => {
      const reply = ReplySchema.safeParse(message);
      const waiting = reply.success ? pending.get(reply.data.id) : undefined;
      if (!reply.success || !waiting) return;
      pending.delete(reply.data.id);
      if (pending.size === 0) started.unref();
      if ("error" in reply.data) waiting.reject(new Error(`offline language model: ${reply.data.error}`));
      else waiting.resolve(reply.data.result);
    });
    const lost = (error: Error) => {
      if (worker === started) worker = undefined;
      const waiting = [...pending.values()];
      pending.clear();
      for (const request of waiting) request.reject(error);
    };
    started.on("error", lost);
    started.on("exit", (code) => lost(new Error(`offline language model worker exited with code ${code}`)));
    started.unref();
    return started;
  };
  const call = (method: "summarize" | "extract", request: SummaryRequest | ExtractionRequest): Promise<unknown> =>
    new Promise((resolve, reject) => {
      worker ??= start();
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, method, request });
    });
  return {
    id: offlineLanguageModel.id,
    summarize: async (request) => SummaryShape.parse(await call("summarize", request)) as Summary,
    extract: async (request) => ExtractionShape.parse(await call("extract", request)) as Extraction,
  };
}
