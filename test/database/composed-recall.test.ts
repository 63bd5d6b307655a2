import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { countStatementWaves } from "../../src/db/statement-waves.js";
import { CorpusStatisticsCache } from "../../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { kindChannel } from "../../src/memory/recall/engines/sql-kinds.js";
import {
  type RecalledMemory,
  type RecallQuery,
  type RecallSettings,
  recallMemories,
  recallWithFollowingTurns,
} from "../../src/memory/recall/hybrid-recall.js";
import { embedQueryForRecall } from "../../src/memory/recall/query-vector.js";
import { kindsAskedAbout } from "../../src/memory/recall/statement-kinds.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * Recall in one statement (RECALL_PLAN=auto on a server) finds what recall channel by channel
 * finds: the same memories in the same order with the same signals, the same following turns,
 * later statements and source turns, on the embedded database and on Postgres (HNSW there), for a
 * small corpus, a large one with cached statistics, a corpus that turns out large (the plan steps
 * back), a long query, a question about the past, a window of time, and no query vector at all.
 */
const USER = "composed-user";
const NOW = new Date();
let runtime: Runtime;

const day = (n: number) => new Date(Date.UTC(2025, 0, n, 9)).toISOString();

beforeAll(async () => {
  runtime = await startTestRuntime({ LOG_LEVEL: "error" });
  const talk = async (when: number, turns: [string, string][]) => {
    const sessionId = await createSession(runtime.app, USER, { started_at: day(when) });
    const events = turns.flatMap(([said, answer], index) => [
      message("user", said, { occurred_at: new Date(Date.parse(day(when)) + index * 60_000).toISOString() }),
      message("assistant", answer, { occurred_at: new Date(Date.parse(day(when)) + index * 60_000 + 30_000).toISOString() }),
    ]);
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  };
  await talk(3, [
    ["I live in Bristol with my partner Sam.", "Nice city!"],
    ["My bike is a red single-speed I built myself.", "Impressive."],
    ["Sam and I booked a Kyoto trip for April.", "Kyoto in spring is lovely."],
  ]);
  await talk(20, [
    ["We moved to Leeds last week, the flat is near the park.", "Congratulations on the move!"],
    ["The bike survived the move, only the bell broke.", "Good news."],
    ["Any tips for keeping basil alive indoors?", "Water it from below and give it light."],
  ]);
  await talk(41, [
    ["Kyoto was wonderful, the temples were quiet in the morning.", "Sounds like a great trip."],
    ["I sold the red bike and bought a green touring bike.", "Enjoy the new bike!"],
    ["My sister Ana visits us in Leeds next month.", "How nice."],
    ["I really love bouldering at the climbing hall on Fridays.", "Fridays well spent, then."],
  ]);
  await waitForSettled(runtime.app, USER);
});
afterAll(() => runtime?.close());

/** The fields of a recalled memory that recall decides, in a form `toEqual` compares with float tolerance spelled out. */
function shape(memories: RecalledMemory[]) {
  return memories.map((memory) => ({
    id: memory.id,
    vectorRank: memory.vectorRank,
    textRank: memory.textRank,
    channels: memory.channels,
    superseded: memory.superseded,
    sources: memory.sources,
    lastConfirmedAt: memory.lastConfirmedAt,
    retention: memory.retention.toFixed(9),
    // Weights are logarithms taken in SQL on one side and in the process on the other: equal to the last few bits.
    score: memory.score.toFixed(12),
    fused: memory.fused.toFixed(12),
    neighbourBoost: memory.neighbourBoost.toFixed(12),
    similarity: memory.similarity.toFixed(6),
    coverage: memory.coverage.toFixed(12),
  }));
}

async function queryOf(text: string, extra: Partial<RecallQuery> = {}, vector = true): Promise<RecallQuery> {
  const warnings: string[] = [];
  const embedded = vector
    ? await embedQueryForRecall(
        { embedder: runtime.providers.embedder, ...(runtime.ann ? { ann: runtime.ann } : {}) },
        { appId: "default", userId: USER, stage: "query" },
        text,
        warnings,
      )
    : undefined;
  return { appId: "default", userId: USER, text, vector: embedded, limit: 12, now: NOW, ...extra };
}

/**
 * Search with each plan; the composed one must have been one statement (two on the embedded
 * database: its settings first), not the channels' path it steps back to when it cannot.
 */
async function bothPlans(query: RecallQuery, settings: RecallSettings): Promise<[RecalledMemory[], RecalledMemory[]]> {
  const channels = await recallMemories(runtime.database.db, query, { ...settings, plan: "channels" });
  const composed = await countStatementWaves(() => recallMemories(runtime.database.db, query, { ...settings, plan: "composed" }));
  expect(composed.statements).toBeLessThanOrEqual(2);
  return [channels, composed.result];
}

const CORPUS_WORDS =
  "live Bristol partner Sam bike red single speed built Kyoto planning trip April moved Leeds week flat near park survived bell broke " +
  "tips keeping basil alive indoors temples quiet morning wonderful sold bought green touring sister Ana visits month city impressive lovely";
const LONG_WORDS = ["bike", "Leeds", "Kyoto", "basil", "sister", "temples", "flat", "park"];
const QUERIES = [
  "Where do I live now?",
  "What bike do I ride?",
  "Tell me about the trip to Kyoto with Sam",
  "the and of",
  "zeppelin",
  // Past 32 words: the rarest are weighed, in the order the query gives them (most of these the corpus lacks; all of the next it has).
  `${Array.from({ length: 40 }, (_, index) => `${LONG_WORDS[index % LONG_WORDS.length]}${index}`).join(" ")} bike Leeds Kyoto basil`,
  CORPUS_WORDS,
];

describe("recall in one statement and channel by channel", () => {
  it("the kind channel and coverage-weighted fusion: the same ranking, every channel in the receipts", async () => {
    const settings: RecallSettings = { minTextCoverage: 0.2, coverageWeighted: true, neighbourWeight: 0.5, channels: [kindChannel] };
    for (const text of ["What do I enjoy doing after work?", "Which city do I love?", QUERIES[2] as string]) {
      const query = { ...(await queryOf(text)), kinds: kindsAskedAbout(text) };
      const [channels, composed] = await bothPlans(query, settings);
      expect(shape(composed)).toEqual(shape(channels));
      if (query.kinds.length > 0) expect(channels.some((memory) => memory.channels.some((place) => place.channel === "kind"))).toBe(true);
    }
  });

  it("a limit too small for every channel's hits: the same ranking, each channel's first hit in it", async () => {
    for (const text of QUERIES.slice(0, 3)) {
      const [channels, composed] = await bothPlans(await queryOf(text, { limit: 4 }), { minTextCoverage: 0.2, neighbourWeight: 0.5 });
      expect(shape(composed)).toEqual(shape(channels));
      expect(channels.some((memory) => memory.vectorRank === 1)).toBe(true);
      expect(channels.some((memory) => memory.textRank === 1)).toBe(true);
    }
  });

  it.each(QUERIES.map((text) => [text.slice(0, 40), text]))("search: the same ranking for %j", async (_label, text) => {
    const [channels, composed] = await bothPlans(await queryOf(text as string), { minTextCoverage: 0.2 });
    expect(shape(composed)).toEqual(shape(channels));
    if (!["the and of", "zeppelin"].includes(text)) expect(channels.length).toBeGreaterThan(3);
  });

  it("a window: the same ranking, following turns, later statements, source turns and the asker's own statements", async () => {
    for (const text of QUERIES.slice(0, 3)) {
      const query = await queryOf(text);
      const settings: RecallSettings = { minTextCoverage: 0.2, neighbourWeight: 0.5 };
      const reading = { inQuestions: true };
      const ownStatements = { count: 2, vector: queryOf("I ride my bike in Leeds").then((own) => own.vector), reading };
      const later = { count: 4, perStatement: 1, minSimilarity: 0.2, byName: true, inQuestions: true };
      const ahead = { laterStatements: later, sourceTurns: 3, ownStatements };
      const a = await recallWithFollowingTurns(runtime.database.db, query, { ...settings, plan: "channels" }, 5, ahead);
      const { result: b, statements: sent } = await countStatementWaves(() =>
        recallWithFollowingTurns(runtime.database.db, query, { ...settings, plan: "composed" }, 5, ahead),
      );
      expect(sent).toBeLessThanOrEqual(2);
      expect(a.following.length).toBeGreaterThan(0);
      expect(shape(b.ranked)).toEqual(shape(a.ranked));
      expect(b.anchors).toEqual(a.anchors);
      expect(shape(b.following.sort(byId))).toEqual(shape(a.following.sort(byId)));
      expect(a.ownStatements.length).toBe(2);
      expect(b.ownStatements.map((memory) => memory.id)).toEqual(a.ownStatements.map((memory) => memory.id));
      const statements = a.ranked.map((memory) => ({ id: memory.id, after: memory.lastConfirmedAt }));
      const options = { perStatement: 1, minSimilarity: 0.2, byName: true, inQuestions: true, now: NOW };
      expect(await b.laterStatements(statements, options)).toEqual(await a.laterStatements(statements, options));
      // The own statements the window picks were read ahead with the ranking: asking costs no statement more.
      const own = b.ownStatements.map((memory) => ({ id: memory.id, after: memory.lastConfirmedAt }));
      const asked = await countStatementWaves(() => b.laterStatements(own, options));
      expect(asked.statements).toBe(0);
      expect(asked.result).toEqual(await a.laterStatements(own, options));
      const facts = a.ranked.filter((memory) => memory.type === "semantic");
      const [turnsA, turnsB] = await Promise.all([a.sourceTurns(facts), b.sourceTurns(facts)]);
      expect(new Map([...turnsB].map(([id, turns]) => [id, shape(turns.sort(byId))]))).toEqual(
        new Map([...turnsA].map(([id, turns]) => [id, shape(turns.sort(byId))])),
      );
    }
  });

  it("a question about the past, a window of time, facts only, and no query vector", async () => {
    const cases: [string, Partial<RecallQuery>, boolean][] = [
      ["What bike do I ride?", { asOf: new Date(Date.UTC(2025, 0, 25)) }, true],
      [
        "In which city do I live at present?",
        { window: { from: new Date(Date.UTC(2025, 0, 15)), to: new Date(Date.UTC(2025, 0, 30)) } },
        true,
      ],
      ["In which city do I live at present?", { types: ["semantic"] }, true],
      ["In which city do I live at present?", {}, false],
    ];
    for (const [text, extra, vector] of cases) {
      const [channels, composed] = await bothPlans(await queryOf(text, extra, vector), { minTextCoverage: 0.2 });
      expect(shape(composed)).toEqual(shape(channels));
      expect(channels.length).toBeGreaterThan(0);
    }
  });

  it("a corpus read through the word index: first counted channel by channel, then from the cache in one statement", async () => {
    // A corpus of "10 memories or more" is large here, and its statistics are kept.
    const cache = () => new CorpusStatisticsCache({ ttlMs: 60_000, minCorpus: 10, minDocumentFrequency: 2, maxEntries: 10 });
    const caches = { channels: cache(), composed: cache() };
    let counted = false;
    for (const text of [QUERIES[1], QUERIES[2], QUERIES[5], QUERIES[6]] as string[]) {
      const query = await queryOf(text);
      for (let round = 0; round < 2; round++) {
        const settings = (plan: "channels" | "composed") => ({
          minTextCoverage: 0.2,
          wordIndexMinCorpus: 10,
          statistics: caches[plan],
          plan,
        });
        const channels = await recallMemories(runtime.database.db, query, settings("channels"));
        const composed = await countStatementWaves(() => recallMemories(runtime.database.db, query, settings("composed")));
        // First the plan finds the corpus large and steps back to the channels, which count it; then one statement.
        if (counted) expect(composed.statements).toBeLessThanOrEqual(2);
        else expect(composed.statements).toBeGreaterThan(2);
        counted = true;
        expect(shape(composed.result)).toEqual(shape(channels));
      }
    }
    const kept = (cache: CorpusStatisticsCache) => {
      const known = cache.lookup(`default\u0000${USER}\u0000`);
      return known && { n: known.n, avgLength: known.avgLength, df: known.df };
    };
    expect(kept(caches.composed)?.df.size).toBeGreaterThan(0);
    expect(kept(caches.composed)).toEqual(kept(caches.channels));
  });
});

const byId = (a: RecalledMemory, b: RecalledMemory) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
