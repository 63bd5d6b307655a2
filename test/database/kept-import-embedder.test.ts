import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { checkKeptEmbedder } from "../../src/eval/kept-import.js";
import { createHashingEmbedder } from "../../src/providers/offline/hashing-embedder.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/**
 * An evaluation answers a kept import only with the embedder that made its vectors: a question
 * embedded by one model finds nothing among another's vectors, and the figures would be the text
 * channel's under the new model's name.
 */
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});
const { session } = factSessions(() => runtime as Runtime);

describe("a kept import answered by another embedder", () => {
  it("is refused with the directory and both models named, and answered by its own", async () => {
    runtime = await startTestRuntime({}, { providers: { embedder: createHashingEmbedder() } });
    const { db } = runtime.database;
    const own = runtime.providers.embedder.model;
    await expect(checkKeptEmbedder(db, "another-model", "/kept/empty")).resolves.toBeUndefined();
    await session("keeper", 3, ["The greenhouse tomatoes came up early this spring.", "We repainted the porch a pale green."]);
    await expect(checkKeptEmbedder(db, own, "/kept/one")).resolves.toBeUndefined();
    await expect(checkKeptEmbedder(db, "another-model", "/kept/one")).rejects.toThrow(
      `--import-dir /kept/one was embedded by ${own}, and this run embeds with another-model`,
    );
  });
});
