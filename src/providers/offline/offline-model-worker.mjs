// Runs the offline language model (extractive summaries, rule-based extraction) in a worker thread:
// its parsing and tagging are synchronous, and on the main thread a chunk of long events would
// stall every request for as long. Plain JavaScript so Node loads it under tsx, vitest and a build;
// from the TypeScript sources (tests), tsx's loader is registered first.
import { parentPort, workerData } from "node:worker_threads";

const moduleUrl = workerData.moduleUrl;
if (moduleUrl.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api");
  register();
}
const { offlineLanguageModel } = await import(moduleUrl);

parentPort.on("message", async ({ id, method, request }) => {
  try {
    const result = method === "summarize" ? await offlineLanguageModel.summarize(request) : await offlineLanguageModel.extract(request);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
