import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { essentialTerms } from "../../src/memory/recall/engines/sql-bm25/sql-bm25-index.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const USER = "bounded-text-user";
/** More memories hold "cats" than one word brings to the text ranking (1,000). */
const COMMON = 1_200;

describe("the words a memory must hold one of to reach the coverage floor", () => {
  it("leaves out the commonest words while their idf together stays below the floor", () => {
    const weights = [
      { lexeme: "jon", idf: 0.3 },
      { lexeme: "gina", idf: 0.25 },
      { lexeme: "common", idf: 3.1 },
    ];
    // Floor 0.2 × 3.65 = 0.73: "gina" and "jon" (0.55 together) cannot qualify a memory alone.
    expect(essentialTerms(weights, 0.2).map((weight) => [weight.lexeme, weight.essential])).toEqual([
      ["jon", false],
      ["gina", false],
      ["common", true],
    ]);
    // At 0.1 (floor 0.365) "gina" alone stays below it, "jon" with it would not.
    expect(
      essentialTerms(weights, 0.1)
        .filter((weight) => !weight.essential)
        .map((weight) => weight.lexeme),
    ).toEqual(["gina"]);
    expect(essentialTerms(weights, 0).every((weight) => weight.essential)).toBe(true);
    expect(essentialTerms([{ lexeme: "jon", idf: 0.3 }], 0.2)[0]?.essential).toBe(true);
  });
});

// This corpus is small enough to be read row by row; through the word index, each word brings at most 1,000 matches.
describe.each([
  ["row by row", {}],
  ["through the word index", { wordIndexMinCorpus: 0 }],
])("full-text ranking over a word held by thousands of memories (%s)", (_path, settings) => {
  let runtime: Runtime;
  const recall = (text: string) =>
    recallMemories(
      runtime.database.db,
      { appId: "default", userId: USER, text, limit: 20, now: new Date() },
      { minTextCoverage: 0.2, ...settings },
    );

  beforeAll(async () => {
    runtime = await startTestRuntime();
    const insert = (rows: { content: string; hash: string }[]) =>
      runtime.database.db.execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at) VALUES ${sql.join(
          rows.map(
            (row) =>
              sql`(gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', ${row.content}, ${row.hash}, now() - interval '1 hour')`,
          ),
          sql`, `,
        )}`,
      );
    // "cats" in two thirds of the memories (in 80% it would be left out as a stop word).
    // Zebra memories first and last in storage order: wherever the bound cuts the common word's
    // matches, the rare word brings all of its own.
    await insert([{ content: "Cats and zebras shared the paddock, first.", hash: "zebra-first" }]);
    await insert(Array.from({ length: COMMON }, (_, i) => ({ content: `Cats were mentioned in note ${i}.`, hash: `cat-${i}` })));
    await insert(Array.from({ length: 600 }, (_, i) => ({ content: `The weather was mild on day ${i}.`, hash: `weather-${i}` })));
    await insert([
      { content: "A zebra and two cats, last.", hash: "zebra-last" },
      { content: "Zebras only, no other animals.", hash: "zebra-alone" },
    ]);
  });
  afterAll(() => runtime?.close());

  it("still finds every memory of a rare word, ranked above the common word's", async () => {
    const recalled = await recall("cats and zebras");
    expect(
      recalled
        .slice(0, 3)
        .map((memory) => memory.content)
        .sort(),
    ).toEqual(["A zebra and two cats, last.", "Cats and zebras shared the paddock, first.", "Zebras only, no other animals."]);
  });

  it("fills the ranking from a common word alone", async () => {
    const recalled = await recall("cats");
    expect(recalled).toHaveLength(20);
    expect(recalled.every((memory) => /cat/i.test(memory.content) && memory.textRank !== null)).toBe(true);
  });
});

describe("a query the embedder cannot embed", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    // Embedding runs beside the text ranking now; its failure must still reach the answer.
    const failing = { model: "failing-512", dimensions: 512, embed: () => Promise.reject(new Error("embedder down (503)")) };
    runtime = await startTestRuntime({}, { providers: { embedder: failing } });
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at)
          VALUES (gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', 'Noor adopted a zebra named Stripes.', 'zebra', now() - interval '1 hour'),
                 (gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', 'Noor went hiking on Sunday.', 'hiking', now() - interval '1 hour'),
                 (gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', 'Noor is vegetarian.', 'food', now() - interval '1 hour')`,
    );
  });
  afterAll(() => runtime?.close());

  it.each([
    ["/v1/context", { user_id: USER, query: "Tell me about the zebra", max_tokens: 500 }],
    ["/v1/memories/search", { user_id: USER, query: "Tell me about the zebra", limit: 5 }],
  ])("%s answers from the text ranking and says why", async (route, body) => {
    const response = await runtime.app.request(route, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const answer = JSON.stringify(await response.json());
    expect(answer).toContain("Noor adopted a zebra named Stripes.");
    expect(answer).toMatch(/vector recall skipped, full-text only: .*embedder down \(503\)/);
  });
});
