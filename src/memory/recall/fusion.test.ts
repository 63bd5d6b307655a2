import { describe, expect, it } from "vitest";
import { rankedHit } from "../../../test/fixtures/ranked-hit.js";
import { fuseRankings, RRF_K } from "./fusion.js";

const hit = rankedHit;

describe("fuseRankings", () => {
  it("sums reciprocal ranks over both rankings and keeps each ranking's position and signal", () => {
    const [both, vectorOnly, textOnly] = fuseRankings(
      {
        vector: [hit("both", 2, { similarity: 0.8 }), hit("vector-only", 1, { similarity: 0.9 })],
        text: [hit("both", 1, { coverage: 0.5 }), hit("text-only", 3, { coverage: 1 })],
      },
      0,
      10,
    );
    expect(both).toMatchObject({ id: "both", vector_rank: 2, text_rank: 1, similarity: 0.8, coverage: 0.5, neighbour_boost: 0 });
    expect(both?.fused).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1), 15);
    expect(vectorOnly).toMatchObject({ id: "vector-only", vector_rank: 1, text_rank: null, coverage: 0 });
    expect(textOnly).toMatchObject({ id: "text-only", vector_rank: null, text_rank: 3, similarity: 0 });
  });

  it("counts a text hit by the share of the query it matches when weighted by coverage", () => {
    const rankings = {
      vector: [hit("meant", 1, { similarity: 0.5 }), hit("common-word", 4, { similarity: 0.45 })],
      text: [hit("common-word", 1, { coverage: 0.2 }), hit("meant", 8, { coverage: 1 })],
    };
    expect(fuseRankings(rankings, 0, 10).map((fused) => fused.id)).toEqual(["common-word", "meant"]);
    const weighted = fuseRankings(rankings, 0, 10, true);
    expect(weighted.map((fused) => fused.id)).toEqual(["meant", "common-word"]);
    expect(weighted[1]?.fused).toBeCloseTo(1 / (RRF_K + 4) + 0.2 / (RRF_K + 1), 15);
  });

  it("boosts a turn beside a well-ranked turn of the same session only", () => {
    const turn = (id: string, rank: number, session: string, seq: number) => hit(id, rank, { session_id: session, turn_seq: seq });
    const fused = fuseRankings(
      {
        vector: [turn("question", 1, "s1", 4), turn("answer", 50, "s1", 5), turn("elsewhere", 50, "s2", 5), turn("two-away", 50, "s1", 6)],
        text: [],
      },
      0.5,
      10,
    );
    const byId = new Map(fused.map((entry) => [entry.id, entry]));
    expect(byId.get("answer")?.neighbour_boost).toBeCloseTo(0.5 / (RRF_K + 1), 15);
    expect(byId.get("answer")?.score).toBeCloseTo(1 / (RRF_K + 50) + 0.5 / (RRF_K + 1), 15);
    // The answer's neighbour after it is ranked low, and the question's only neighbour is the answer.
    expect(byId.get("two-away")?.neighbour_boost).toBeCloseTo(0.5 / (RRF_K + 50), 15);
    expect(byId.get("elsewhere")?.neighbour_boost).toBe(0);
    expect(byId.get("question")?.neighbour_boost).toBeCloseTo(0.5 / (RRF_K + 50), 15);
    expect(fused.map((entry) => entry.id).slice(0, 2)).toEqual(["question", "answer"]);
  });

  it("returns the best `limit`, equal scores newest first", () => {
    const fused = fuseRankings(
      {
        vector: [
          hit("first", 1),
          hit("old", 2, { created_at: "2026-01-01 00:00:00+00" }),
          hit("newer", 2, { created_at: "2026-01-01 00:00:00.5+00" }),
          hit("newest", 2, { created_at: "2026-01-02 00:00:00+00" }),
        ],
        text: [],
      },
      0,
      3,
    );
    expect(fused.map((entry) => entry.id)).toEqual(["first", "newest", "newer"]);
  });

  it("keeps each channel's first hit among the best, in the place of the last of the others", () => {
    // Turns both channels found, each beside another: all score above a hit one channel ranked first.
    const turn = (id: string, rank: number, seq: number) => hit(id, rank, { session_id: "s1", turn_seq: seq });
    const pairs = [turn("a", 2, 1), turn("b", 3, 2), turn("c", 4, 3), turn("d", 5, 4)];
    const rankings = { vector: [hit("by-meaning-only", 1, { similarity: 0.9 }), ...pairs], text: pairs };
    const fused = fuseRankings(rankings, 0.5, 4);
    expect(fused.map((entry) => entry.id)).toEqual(["a", "b", "c", "by-meaning-only"]);
    expect(fused.every((entry, index) => index === 0 || (fused[index - 1] as { score: number }).score >= entry.score)).toBe(true);
    // Two heads are more than half of three: the best three by score, as a short search wants them.
    expect(fuseRankings(rankings, 0.5, 3).map((entry) => entry.id)).toEqual(["a", "b", "c"]);
    // Of equal first ranks, the lowest id is the channel's first.
    const both = ["p1", "p2", "p3", "p4"];
    const tied = {
      vector: both.map((id, index) => hit(id, index + 1)),
      text: [hit("y", 1), hit("x", 1), ...both.map((id, index) => hit(id, index + 2))],
    };
    const kept = fuseRankings(tied, 0, 4).map((entry) => entry.id);
    expect(kept).toContain("x");
    expect(kept).not.toContain("y");
  });
});
