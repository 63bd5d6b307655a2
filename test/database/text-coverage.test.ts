import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { parseEnv } from "../../src/config/env.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const USER = "coverage-user";

describe("full-text candidates must match a share of the query's BM25 weight (RECALL_MIN_TEXT_COVERAGE)", () => {
  let runtime: Runtime;
  const recall = (text: string, minTextCoverage: number) =>
    recallMemories(runtime.database.db, { appId: "default", userId: USER, text, limit: 20, now: new Date() }, { minTextCoverage });

  beforeAll(async () => {
    runtime = await startTestRuntime();
    // A conversation between two people: their names are in most turns (here in 25 and 26 of 33:
    // idf 0.29 and 0.25 against 3.1 for "common", so a turn with both names and nothing else
    // matches 15% of the question's weight), and short turns that say nothing but the names would
    // win a BM25 ranking by length.
    const contents = [
      ...Array.from({ length: 12 }, (_, i) => `Gina: Go Jon! Keep going, day ${i}!`),
      ...Array.from({ length: 12 }, (_, i) => `Jon: Thanks Gina, you are the best, number ${i}.`),
      "Jon: Dancing is the thing Gina and I have in common, we both started as kids.",
      "Gina: My store sells dresses and I design most of them myself.",
      // Enough turns without the names that the names are not in 80% of them (dropped as stop words then).
      ...Array.from({ length: 7 }, (_, i) => `The weather was sunny on day ${i}.`),
    ];
    const values = contents.map(
      (content, i) =>
        sql`(gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', ${content}, ${`coverage-${i}`}, now() - interval '1 hour')`,
    );
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at) VALUES ${sql.join(values, sql`, `)}`,
    );
  });
  afterAll(() => runtime?.close());

  it("leaves out memories that match only a question's common words, once it has telling ones", async () => {
    const question = "What do Jon and Gina have in common?";
    const unfiltered = await recall(question, 0);
    expect(unfiltered.length).toBeGreaterThan(10);
    const floored = await recall(question, 0.2);
    expect(floored.map((memory) => memory.content)).toEqual([
      "Jon: Dancing is the thing Gina and I have in common, we both started as kids.",
    ]);
  });

  it("keeps what the question asks for when its only words are the common ones", async () => {
    const names = await recall("Jon and Gina", 0.2);
    expect(names.length).toBeGreaterThan(10);
    expect(names.every((memory) => /Jon/.test(memory.content) && /Gina/.test(memory.content))).toBe(true);
  });

  it("is a share between 0 and 1, 0.2 by default", () => {
    expect(parseEnv({}).RECALL_MIN_TEXT_COVERAGE).toBe(0.2);
    expect(() => parseEnv({ RECALL_MIN_TEXT_COVERAGE: "1.5" })).toThrow(/RECALL_MIN_TEXT_COVERAGE/);
  });
});
