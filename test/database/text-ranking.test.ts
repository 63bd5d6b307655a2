import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { MAX_QUERY_WORDS } from "../../src/memory/recall/engines/bm25.js";
import { CorpusStatisticsCache } from "../../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { type RecallSettings, recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const USER = "row-scan-user";
const TOPICS = ["gardening roses", "tomatoes soup", "hiking alps", "chess openings", "jazz piano", "tomatoes garden"];

/**
 * A small corpus is ranked in two passes over its rows; the word index's path (statistics per
 * word, then candidates per word) must rank it the same. Every memory has a length of its own
 * (i filler words), so no two scores tie, even between words of the same idf, and the order is the ranking's, not the plan's.
 */
describe("full-text ranking of a small corpus, row by row", () => {
  let runtime: Runtime;
  const KEY = `default\u0000${USER}\u0000`;
  const recall = (text: string, settings: RecallSettings) =>
    recallMemories(runtime.database.db, { appId: "default", userId: USER, text, limit: 25, now: new Date() }, settings);

  beforeAll(async () => {
    runtime = await startTestRuntime();
    const rows = Array.from({ length: 60 }, (_, i) => {
      const filler = Array.from({ length: i }, (_, k) => `filler${k}x${i}`).join(" ");
      const content = `Note ${i} about ${TOPICS[i % TOPICS.length]} ${filler}`;
      return sql`(gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', ${content}, ${`row-scan-${i}`}, now() - interval '1 hour', now() - make_interval(mins => ${i}))`;
    });
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at, created_at) VALUES ${sql.join(rows, sql`, `)}`,
    );
  });
  afterAll(() => runtime?.close());

  const ranking = (recalled: Awaited<ReturnType<typeof recall>>) =>
    recalled.map((memory) => `${memory.content.slice(0, 40)} ${memory.textRank} ${memory.coverage.toFixed(9)}`);

  it.each([
    ["tomatoes in the garden", 0],
    ["hiking the alps with a piano", 0],
    ["hiking the alps with a piano", 0.4],
    ["roses, tomatoes and chess", 0.3],
  ])("ranks %j (coverage floor %d) as the word index does", async (text, minTextCoverage) => {
    const byRows = await recall(text, { minTextCoverage });
    const byIndex = await recall(text, { minTextCoverage, wordIndexMinCorpus: 0 });
    expect(byRows.length).toBeGreaterThan(3);
    expect(ranking(byRows)).toEqual(ranking(byIndex));
  });

  it("weighs only the rarest words of a long query, the same on every path", async () => {
    // 400 words of memories 40-59, each in one memory (the rarest), beside common ones and words no memory holds.
    const rare = Array.from({ length: 20 }, (_, k) => Array.from({ length: 20 }, (_, i) => `filler${k}x${40 + i}`)).flat();
    const text = `tomatoes garden hiking ${rare.join(" ")} ${Array.from({ length: 300 }, (_, n) => `nowhere${n}`).join(" ")}`;
    // Of words of equal idf, the first in code-unit order: filler0x40-59, then filler10x40-51.
    const kept = [...rare].sort().slice(0, MAX_QUERY_WORDS);
    expect(kept.at(-1)).toBe("filler10x51");
    const expected = ranking(await recall(kept.join(" "), {}));
    expect(expected.length).toBe(20);
    expect(ranking(await recall(text, {}))).toEqual(expected);
    // The word index's path: 400 words made the statement too deep to build (a RangeError, and a 500).
    expect(ranking(await recall(text, { wordIndexMinCorpus: 0 }))).toEqual(expected);
    if (runtime.residentMemories) {
      const resident = { resident: runtime.residentMemories };
      await recall("tomatoes", resident);
      expect(await runtime.residentMemories.loaded({ appId: "default", userId: USER })).toBe(true);
      expect(ranking(await recall(text, resident))).toEqual(ranking(await recall(kept.join(" "), resident)));
      expect(ranking(await recall(text, resident))).toEqual(expected);
    }
  });

  it("finds nothing for a query without words, and nothing for words no memory holds", async () => {
    expect(await recall("the and of", {})).toEqual([]);
    expect(await recall("zeppelin", {})).toEqual([]);
  });

  it("goes through the word index, and its statistics cache, once the corpus reaches the bound", async () => {
    const options = { ttlMs: 60_000, minCorpus: 10, minDocumentFrequency: 5, maxEntries: 10 };
    const belowBound = new CorpusStatisticsCache(options);
    await recall("tomatoes", { statistics: belowBound, wordIndexMinCorpus: 61 });
    expect(belowBound.lookup(KEY)).toBeUndefined();

    const atBound = new CorpusStatisticsCache(options);
    const recalled = await recall("tomatoes", { statistics: atBound, wordIndexMinCorpus: 60 });
    expect(atBound.lookup(KEY)?.n).toBe(60);
    expect(recalled.length).toBe(20);
  });
});
