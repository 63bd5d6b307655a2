import { describe, expect, it } from "vitest";
import { compareByCategory } from "../../src/eval/ablation.js";
import { evidenceRecall, turnsBySource, turnsByText } from "../../src/eval/evidence-recall.js";
import { evidenceTurns, parseLongMemEvalDate, toQuestion } from "../../src/eval/longmemeval.js";
import { BM25, halfOfQuestion, scoresByHalf, VECTOR } from "../../src/eval/longmemeval-report.js";
import type { QuestionRecall } from "../../src/eval/longmemeval-run.js";
import { pickSubset, subsetKey } from "../../src/eval/longmemeval-subset.js";
import { halfOf } from "../../src/eval/retrieval-split.js";

const raw = {
  question_id: "q1",
  question_type: "multi-session",
  question: "How many bikes do I own?",
  question_date: "2023/05/30 (Tue) 17:14",
  answer: "3",
  answer_session_ids: ["s-late", "s-early"],
  haystack_session_ids: ["s-late", "s-early", "s-noise"],
  haystack_dates: ["2023/05/20 (Sat) 09:00", "2023/05/01 (Mon) 10:30", "2023/05/20 (Sat) 09:00"],
  haystack_sessions: [
    [
      { role: "user", content: "I just bought a  third\nbike.", has_answer: true },
      { role: "assistant", content: "Congratulations!" },
    ],
    [{ role: "user", content: "I have two bikes.", has_answer: true }],
    [{ role: "user", content: "What is the capital of Peru?" }],
  ],
};

describe("LongMemEval questions", () => {
  it("parses the data set's dates as UTC", () => {
    expect(parseLongMemEvalDate("2023/05/30 (Tue) 17:14").toISOString()).toBe("2023-05-30T17:14:00.000Z");
    expect(() => parseLongMemEvalDate("May 30, 2023")).toThrow(/unrecognised/);
  });

  it("orders the haystack by date, ties in the file's order, and names turns by session and position", () => {
    const question = toQuestion(raw);
    expect(question.sessions.map((session) => session.id)).toEqual(["s-early", "s-late", "s-noise"]);
    expect(question.sessions[1]?.turns.map((turn) => turn.id)).toEqual(["s-late#0", "s-late#1"]);
    expect(question.askedAt.toISOString()).toBe("2023-05-30T17:14:00.000Z");
  });

  it("takes the has_answer turns as the evidence", () => {
    expect(evidenceTurns(toQuestion(raw)).map((turn) => turn.id)).toEqual(["s-early#0", "s-late#0"]);
  });
});

describe("evidence recall", () => {
  const items = [
    { text: "- user: I just bought a third bike.", sources: [{ event_id: "e2" }] },
    { text: "- The user talked about bikes and cars.", sources: [{ event_id: "e1" }, { event_id: "e9" }] },
  ];
  const turnByEvent = new Map([
    ["e1", "s-early#0"],
    ["e2", "s-late#0"],
  ]);
  const evidence = [
    { id: "s-early#0", content: "I have two bikes." },
    { id: "s-late#0", content: "I just bought a  third\nbike." },
  ];

  it("counts a turn held through any item's source events (an unknown event holds nothing)", () => {
    expect([...turnsBySource(items, turnByEvent)].sort()).toEqual(["s-early#0", "s-late#0"]);
  });

  it("counts a turn by text only when its whole text is in one item, whitespace and case aside", () => {
    expect([...turnsByText(items, evidence)]).toEqual(["s-late#0"]);
    expect(turnsByText([{ text: "- user: I just bought a third…", sources: [] }], evidence).size).toBe(0);
  });

  it("is the share of distinct evidence turns held, NaN without evidence", () => {
    expect(evidenceRecall(["a", "b"], new Set(["b", "z"]))).toBe(0.5);
    expect(evidenceRecall(["a", "a", "b"], new Set(["a"]))).toBe(0.5);
    expect(evidenceRecall([], new Set(["a"]))).toBeNaN();
  });
});

describe("the subset and the split", () => {
  const questions = ["a", "b", "c", "d", "e", "f", "g"].map((id, index) => ({
    id,
    type: index < 5 ? "multi-session" : "temporal-reasoning",
  }));

  it("takes each type's questions in hash order, in turn from each type, the same every time", () => {
    const picked = pickSubset(questions, { limit: 4 });
    expect(picked.map((question) => question.type)).toEqual(["multi-session", "temporal-reasoning", "multi-session", "temporal-reasoning"]);
    const multi = questions
      .filter((question) => question.type === "multi-session")
      .sort((a, b) => subsetKey(a.id).localeCompare(subsetKey(b.id)));
    expect(picked[0]).toBe(multi[0]);
    expect(picked[2]).toBe(multi[1]);
    expect(pickSubset([...questions].reverse(), { limit: 4 }).map((question) => question.id)).toEqual(
      picked.map((question) => question.id),
    );
    expect(pickSubset(questions).length).toBe(7);
    expect(
      pickSubset(questions, { types: ["temporal-reasoning"] })
        .map((question) => question.id)
        .sort(),
    ).toEqual(["f", "g"]);
  });

  it("splits by a fixed hash of the id, about half and half", () => {
    expect(halfOf("longmemeval/q1")).toBe(halfOf("longmemeval/q1"));
    expect(halfOfQuestion("q1")).toBe(halfOf("longmemeval/q1"));
    const held = Array.from({ length: 1000 }, (_, index) => halfOf(`unit-${index}`)).filter((half) => half === "held-out").length;
    expect(held).toBeGreaterThan(430);
    expect(held).toBeLessThan(570);
  });

  it("groups each value's recall by half, paired question by question, with BM25 beside it", () => {
    const ids = Array.from({ length: 12 }, (_, index) => `q${index}`);
    const recall = (id: string, value: number): QuestionRecall => ({
      id,
      type: "multi-session",
      evidence: 1,
      bySource: { 1000: value },
      byText: { 1000: value / 2 },
      bm25: { 1000: 0 },
      vector: { 1000: 1 },
      graphRanked: { 1000: 0 },
    });
    const scores = scoresByHalf({ "0": ids.map((id) => recall(id, 0.5)), "1": ids.map((id) => recall(id, 1)) }, "bySource");
    const held = ids.filter((id) => halfOfQuestion(id) === "held-out").length;
    expect(scores["1"]?.["held-out"]?.length).toBe(held);
    expect(scores["1"]?.["tuning"]?.length).toBe(12 - held);
    const table = compareByCategory(scores, "0", "1", ["tuning", "held-out"], [1000]);
    expect(table["multi-session"]?.[1000]).toMatchObject({ n: 12, a: 0.5, b: 1, difference: 0.5, standardError: 0 });
    expect(compareByCategory(scores, BM25, "1", ["held-out"], [1000])["all"]?.[1000]?.a).toBe(0);
    expect(compareByCategory(scores, VECTOR, "1", ["held-out"], [1000])["all"]?.[1000]?.a).toBe(1);
    // recall_all: a question counts only when every evidence turn is held.
    const all = scoresByHalf({ "0": ids.map((id) => recall(id, 0.5)), "1": ids.map((id) => recall(id, 1)) }, "all");
    expect(compareByCategory(all, "0", "1", ["tuning", "held-out"], [1000])["all"]?.[1000]).toMatchObject({ a: 0, b: 1 });
  });
});
