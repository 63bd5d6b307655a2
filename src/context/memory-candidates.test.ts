import { describe, expect, it } from "vitest";
import { recalledTurn } from "../../test/fixtures/recalled-memory.js";
import type { RecalledMemory, TurnAnchor } from "../memory/recall/hybrid-recall.js";
import {
  orderByQuestionTime,
  spreadOverSessions,
  withFollowingTurns,
  withOwnStatementsFirst,
  withSourceTurns,
} from "./memory-candidates.js";
import { readQuestion } from "./question.js";

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

describe("the order a question's reach and time give", () => {
  const now = new Date("2024-06-30T12:00:00Z");
  const at = (id: string, sessionId: string, day: string) => recalledTurn(id, { sessionId, validAt: new Date(`${day}T10:00:00Z`) });
  const ids = (memories: RecalledMemory[]) => memories.map((memory) => memory.id);

  it("puts each session's best hit before any session's second when the question gathers over occasions", () => {
    const ranked = [
      at("a1", "a", "2024-01-05"),
      at("a2", "a", "2024-01-05"),
      at("b1", "b", "2024-02-05"),
      at("a3", "a", "2024-01-05"),
      at("c1", "c", "2024-03-05"),
    ];
    expect(ids(spreadOverSessions(ranked, readQuestion("How many times did I repaint the fence?", now)))).toEqual([
      "a1",
      "b1",
      "c1",
      "a2",
      "a3",
    ]);
    expect(ids(spreadOverSessions(ranked, readQuestion("Which did I buy first, the kayak or the tent?", now)))).toEqual([
      "a1",
      "b1",
      "c1",
      "a2",
      "a3",
    ]);
    expect(spreadOverSessions(ranked, readQuestion("What colour did I repaint the fence?", now))).toEqual(ranked);
  });

  it("lifts the memories of the span a question names past those recall ranked up to twice as high", () => {
    const ranked = [at("april", "b", "2024-04-12"), at("june", "c", "2024-06-02"), at("may", "a", "2024-05-10")];
    expect(ids(orderByQuestionTime(ranked, readQuestion("What did I plant last month?", now)))).toEqual(["april", "may", "june"]);
    expect(orderByQuestionTime(ranked, readQuestion("What did I plant?", now))).toEqual(ranked);
  });

  it("lifts newer memories when the question asks what holds now, older ones when it asks what came first", () => {
    const ranked = [at("old", "a", "2024-01-10"), at("new", "c", "2024-06-10"), at("middle", "b", "2024-03-10")];
    expect(ids(orderByQuestionTime(ranked, readQuestion("Which bike do I ride these days?", now)))).toEqual(["new", "old", "middle"]);
    expect(ids(orderByQuestionTime(ranked, readQuestion("Which bike did I ride originally?", now)))).toEqual(["old", "middle", "new"]);
    expect(orderByQuestionTime(ranked, readQuestion("Which bike do I ride?", now))).toEqual(ranked);
  });
});

describe("the turns a fact was derived from", () => {
  it("follow the fact, moving a lower-ranked turn up and leaving a higher-ranked one in place", () => {
    const fact = recalledTurn("fact", { type: "semantic", subtype: "profile" });
    const ranked = [recalledTurn("early"), fact, recalledTurn("middle"), recalledTurn("late")];
    const placed = withSourceTurns(ranked, new Map([["fact", [recalledTurn("late"), recalledTurn("early"), recalledTurn("unranked")]]]));
    expect(placed.map((memory) => memory.id)).toEqual(["early", "fact", "late", "unranked", "middle"]);
  });
});

describe("the asker's own statements in a context window's candidates", () => {
  it("go first in their order, a ranked one moved up once with its recall scores, the rest as ordered", () => {
    const first = turn("first", "s1", 1);
    const second = turn("second", "s2", 1);
    const ranked = [turn("a", "s3", 1), { ...second, score: 0.7 }, turn("b", "s4", 1)];
    const placed = withOwnStatementsFirst(ranked, [first, second]);
    expect(placed.map((memory) => memory.id)).toEqual(["first", "second", "a", "b"]);
    expect(placed[1]?.score).toBe(0.7);
    expect(withOwnStatementsFirst(ranked, [])).toBe(ranked);
  });
});
