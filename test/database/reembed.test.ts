import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { startRuntime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import type { Embedder } from "../../src/providers/types.js";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { call, testEnv, waitForSettled } from "../fixtures/runtime.js";

/** A second embedding model: 8 dimensions from character codes, enough to tell models apart. */
const otherModel: Embedder = {
  model: "test-chars-8",
  dimensions: 8,
  embed: async (texts) => texts.map((text) => Array.from({ length: 8 }, (_, i) => ((text.charCodeAt(i) || 1) % 17) + 1)),
};

let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
});

describe("embedding model change (M5)", () => {
  it("re-embeds every memory with the new model and never mixes vectors of two models", async () => {
    database = await freshDatabase({ persistent: true });
    const first = await startRuntime(testEnv(database.env));
    for (const content of ["Ada keeps bees on her roof.", "Ada is learning Portuguese.", "Ada runs a pottery studio."]) {
      await call(first.app, "POST", "/v1/memories", { user_id: "ada", type: "insight", content });
    }
    const models = async (runtime: typeof first) =>
      (
        await queryRows<{ model: string; dims: number }>(
          runtime.database.db,
          sql`SELECT embedding_model AS model, vector_dims(embedding) AS dims FROM memories WHERE user_id = 'ada'`,
        )
      ).map((row) => `${row.model}/${row.dims}`);
    expect(await models(first)).toEqual(["use-lite-512/512", "use-lite-512/512", "use-lite-512/512"]);
    await first.close();

    const second = await startRuntime(testEnv({ ...database.env, SWEEP_CRON: "* * * * * *", SWEEP_MIN_AGE: "0s" }), {
      providers: { embedder: otherModel },
    });
    try {
      const status = (await call(second.app, "GET", "/v1/pipeline/status?user_id=ada")).body;
      expect(status.backlog.unembedded_memories).toBe(3);
      await waitForSettled(second.app, "ada");
      expect(await models(second)).toEqual(["test-chars-8/8", "test-chars-8/8", "test-chars-8/8"]);
      const found = await call(second.app, "POST", "/v1/memories/search", { user_id: "ada", query: "bees" });
      expect(found.body.memories[0].content).toBe("Ada keeps bees on her roof.");
    } finally {
      await second.close();
    }
  });
});
