import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { CorpusStatisticsCache, corpusStatistics } from "../../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { queryLexemes } from "../../src/memory/recall/engines/sql-bm25/text-ranking.js";
import { recallMemories } from "../../src/memory/recall/hybrid-recall.js";
import { m, visibleAt } from "../../src/memory/visibility.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const USER = "corpus-user";

/** Thresholds scaled down so a corpus of a few dozen memories counts as large. */
const cacheOptions = { ttlMs: 60_000, minCorpus: 20, minDocumentFrequency: 5, maxEntries: 2 };
/** And matched through the word index, where the cache is used (a small corpus is counted row by row, every time). */
const large = { wordIndexMinCorpus: 0 };

describe("BM25 corpus statistics and their cache", () => {
  let runtime: Runtime;
  let clock = 0;
  const addMemories = async (contents: string[]) => {
    const values = contents.map(
      (content, i) =>
        sql`(gen_random_uuid(), 'default', ${USER}, 'episodic', 'turn', ${content}, ${`${content}-${i}-${Math.random()}`}, now() - interval '1 hour')`,
    );
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at) VALUES ${sql.join(values, sql`, `)}`,
    );
  };
  const recall = (text: string, cache: CorpusStatisticsCache) =>
    recallMemories(
      runtime.database.db,
      { appId: "default", userId: USER, text, limit: 10, now: new Date() },
      { statistics: cache, ...large },
    );

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await addMemories(Array.from({ length: 30 }, (_, i) => `We talked about gardening and ${i % 2 ? "roses" : "tomatoes"}, day ${i}.`));
  });
  afterAll(() => runtime?.close());

  it("counts the corpus and each query word's document frequency exactly", async () => {
    await addMemories(["Hiking in the Alps was the best trip.", "Hiking again next summer."]);
    const counted = await corpusStatistics(
      runtime.database.db,
      visibleAt(m, { appId: "default", userId: USER }, { now: new Date() }),
      await queryLexemes(runtime.database.db, "hiking tomatoes unicorns"),
      undefined,
    );
    expect(counted.n).toBe(32);
    expect(Object.fromEntries(counted.terms.map((term) => [term.lexeme, term.df]))).toEqual({ hike: 2, tomato: 15, unicorn: 0 });
  });

  it("counts a word exactly up to a limit, and beyond it estimates from its share of the newest memories", async () => {
    // 100 memories a minute apart, newest first: roses in every 4th of the newest 40 (10) and in
    // every 2nd of the 60 older ones (30), so the newest share (1/4) and the overall one (2/5) differ.
    const rows = Array.from({ length: 100 }, (_, i) => {
      const roses = i < 40 ? i % 4 === 0 : i % 2 === 0;
      const content = `Notes ${i}: ${roses ? "roses" : "weeds"}${i < 3 ? " and hiking" : ""}${i >= 80 ? " and tulips" : ""}.`;
      return sql`(gen_random_uuid(), 'default', 'sampled-user', 'episodic', 'turn', ${content}, ${`sampled-${i}`}, now() - interval '1 hour', now() - make_interval(mins => ${i}))`;
    });
    await runtime.database.db.execute(
      sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at, created_at) VALUES ${sql.join(rows, sql`, `)}`,
    );
    const visible = visibleAt(m, { appId: "default", userId: "sampled-user" }, { now: new Date() });
    const dfs = async (limits?: { exactUpTo: number; sample: number }, text = "roses hiking notes") =>
      Object.fromEntries(
        (await corpusStatistics(runtime.database.db, visible, await queryLexemes(runtime.database.db, text), undefined, limits)).terms.map(
          (t) => [t.lexeme, t.df],
        ),
      );

    expect(await dfs()).toEqual({ rose: 40, hike: 3, note: 100 });
    // Past 10 matches: 100 memories × the share in the newest 40 (roses 1/4, notes all); hiking is still counted.
    expect(await dfs({ exactUpTo: 10, sample: 40 })).toEqual({ rose: 25, hike: 3, note: 100 });
    // A word common only among older memories (tulips, the oldest 20) is never put below what was counted.
    expect(await dfs({ exactUpTo: 10, sample: 40 }, "tulips")).toEqual({ tulip: 10 });
    expect(await dfs(undefined, "tulips")).toEqual({ tulip: 20 });
  });

  it("keeps a large corpus's size and common words for its time, and still finds a rare word added since", async () => {
    const cache = new CorpusStatisticsCache(cacheOptions, () => clock);
    expect((await recall("tomatoes", cache)).length).toBe(10);
    const key = `default\u0000${USER}\u0000`;
    expect(cache.lookup(key)?.df.get("tomato")).toBe(15);
    expect(cache.lookup(key)?.n).toBe(32);

    // A word the user just used for the first time is rare: counted at once, never taken as absent.
    await addMemories(["Our new puppy is called Biscuit."]);
    const found = await recall("Biscuit", cache);
    expect(found.map((memory) => memory.content)).toEqual(["Our new puppy is called Biscuit."]);
    expect(cache.lookup(key)?.df.has("biscuit")).toBe(false);
    // The size is the remembered one until the entry expires, then counted again.
    expect(cache.lookup(key)?.n).toBe(32);
    clock += cacheOptions.ttlMs + 1;
    expect(cache.lookup(key)).toBeUndefined();
    await recall("tomatoes", cache);
    expect(cache.lookup(key)?.n).toBe(33);
  });

  it("keeps nothing for a small corpus, for time-travel or windowed queries, and at most maxEntries corpora", async () => {
    const cache = new CorpusStatisticsCache(cacheOptions, () => clock);
    await recallMemories(
      runtime.database.db,
      { appId: "default", userId: "someone-small", text: "tomatoes", limit: 10, now: new Date() },
      { statistics: cache, ...large },
    );
    expect(cache.lookup("default\u0000someone-small\u0000")).toBeUndefined();
    await recallMemories(
      runtime.database.db,
      { appId: "default", userId: USER, text: "tomatoes", limit: 10, now: new Date(), asOf: new Date() },
      { statistics: cache, ...large },
    );
    expect(cache.lookup(`default\u0000${USER}\u0000`)).toBeUndefined();

    const counted = { n: 100, avgLength: 5, terms: [{ lexeme: "tomato", df: 50 }] };
    for (const user of ["a", "b", "c"]) cache.remember(`default\u0000${user}\u0000`, counted);
    expect(cache.lookup("default\u0000a\u0000")).toBeUndefined();
    expect(cache.lookup("default\u0000c\u0000")?.df.get("tomato")).toBe(50);
  });

  it("ranks the same with the cache as without it", async () => {
    const cached = new CorpusStatisticsCache(cacheOptions, () => clock);
    await recall("tomatoes hiking", cached);
    const withCache = await recall("tomatoes hiking", cached);
    const without = await recallMemories(runtime.database.db, {
      appId: "default",
      userId: USER,
      text: "tomatoes hiking",
      limit: 10,
      now: new Date(),
    });
    // Fifteen tomato memories tie (same words, same length): which of them fill the ranking is the
    // plan's choice, so the shares of the query's weight are compared, which the statistics decide.
    expect(withCache.map((memory) => memory.coverage.toFixed(9))).toEqual(without.map((memory) => memory.coverage.toFixed(9)));
    expect(withCache[0]?.content).toContain("Hiking");
  });
});
