import { describe, expect, it } from "vitest";
import { recalledTurn } from "../../test/fixtures/recalled-memory.js";
import type { RecalledMemory, TurnAnchor } from "../memory/recall/hybrid-recall.js";
import { withFollowingTurns } from "./memory-candidates.js";

const turn = (id: string, sessionId: string, seq: number): RecalledMemory => recalledTurn(id, { sessionId, seq });
const anchor = (memory: RecalledMemory): TurnAnchor => ({
  id: memory.id,
  sessionId: memory.sessionId as string,
  seq: memory.seq as number,
});

describe("following turns in a context window's candidates", () => {
  const question = turn("question", "s1", 3);
  const other = turn("other", "s2", 8);
  const answer = turn("answer", "s1", 4);
  const reply = turn("reply", "s2", 9);

  it("puts each anchor's next turn right after it, moving a lower-ranked one up, once", () => {
    // The answer was ranked by recall too (last): it moves up next to its question, keeping its own scores.
    const ranked = [question, other, { ...answer, score: 0.5 }];
    const placed = withFollowingTurns(ranked, [anchor(question), anchor(other)], [answer, reply]);
    expect(placed.map((memory) => memory.id)).toEqual(["question", "answer", "other", "reply"]);
    expect(placed[1]?.score).toBe(0.5);
  });

  it("places nothing after a hit that is not an anchor, or an anchor no longer in the ranking", () => {
    expect(withFollowingTurns([question, other], [anchor(other)], [answer, reply]).map((memory) => memory.id)).toEqual([
      "question",
      "other",
      "reply",
    ]);
    // The question was replaced between its ranking and the read: its answer has nothing to follow.
    expect(withFollowingTurns([other], [anchor(question), anchor(other)], [answer, reply]).map((memory) => memory.id)).toEqual([
      "other",
      "reply",
    ]);
  });
});
