import { describe, expect, it } from "vitest";
import { type RecallIndex, type RecallRequest, rankChannel } from "../../src/memory/recall/engines/recall-index.js";
import { fuseRankings, type RankedHit, RRF_K } from "../../src/memory/recall/fusion.js";
import type { RecalledMemory } from "../../src/memory/recall/hybrid-recall.js";
import { rankingSummary } from "../../src/memory/recall/signals.js";
import { rankedHit } from "../fixtures/ranked-hit.js";

const hit = rankedHit;

/** An engine that answers (or passes) and counts the requests it saw. */
const engine = (name: string, hits: RankedHit[] | undefined) => {
  const seen: RecallRequest[] = [];
  const index: RecallIndex = {
    name,
    rank: async (request) => {
      seen.push(request);
      return hits && { hits };
    },
  };
  return { index, seen };
};

const request = {} as RecallRequest;

describe("a recall channel's engines", () => {
  it("takes the first engine that answers, and asks none after it", async () => {
    const passes = engine("copy-loading", undefined);
    const answers = engine("sql", [hit("a", 1)]);
    const never = engine("fallback", [hit("b", 1)]);
    const ranking = await rankChannel({ name: "vector", engines: [passes.index, answers.index, never.index] }, request);
    expect(ranking).toEqual({ channel: "vector", engine: "sql", hits: [hit("a", 1)] });
    expect([passes.seen.length, answers.seen.length, never.seen.length]).toEqual([1, 1, 0]);
  });

  it("is empty when no engine can answer", async () => {
    const ranking = await rankChannel({ name: "graph", engines: [engine("none-here", undefined).index] }, request);
    expect(ranking).toEqual({ channel: "graph", engine: "none", hits: [] });
  });
});

describe("fusion of a third channel", () => {
  it("adds its reciprocal ranks and keeps where and how it found each memory", () => {
    const fused = fuseRankings(
      {
        vector: [hit("both", 3, { similarity: 0.7 })],
        text: [hit("both", 2, { coverage: 0.4 })],
        graph: [hit("graph-only", 1, { via: "Maya → teacher, 2 hops" }), hit("both", 4, { via: "Maya, 1 hop" })],
      },
      0,
      10,
    );
    const byId = new Map(fused.map((entry) => [entry.id, entry]));
    expect(byId.get("both")?.fused).toBeCloseTo(1 / (RRF_K + 3) + 1 / (RRF_K + 2) + 1 / (RRF_K + 4), 15);
    expect(byId.get("both")?.channels).toEqual([
      { channel: "vector", rank: 3 },
      { channel: "text", rank: 2 },
      { channel: "graph", rank: 4, via: "Maya, 1 hop" },
    ]);
    expect(byId.get("graph-only")).toMatchObject({ vector_rank: null, text_rank: null, similarity: 0, coverage: 0 });
    expect(byId.get("graph-only")?.channels).toEqual([{ channel: "graph", rank: 1, via: "Maya → teacher, 2 hops" }]);
  });

  it("says in the receipts which channel brought a memory and how", () => {
    const memory = {
      vectorRank: 2,
      similarity: 0.61,
      textRank: null,
      coverage: 0,
      neighbourBoost: 0,
      channels: [
        { channel: "vector", rank: 2 },
        { channel: "graph", rank: 1, via: "Maya → teacher, 2 hops" },
      ],
    } as unknown as RecalledMemory;
    expect(rankingSummary(memory)).toBe("vector #2 (similarity 0.61), graph #1 (Maya → teacher, 2 hops)");
  });
});
