import { describe, expect, it } from "vitest";
import { recalledTurn } from "../../test/fixtures/recalled-memory.js";
import type { LaterStatement } from "../memory/recall/later-statements.js";
import { saysSomethingOfSpeaker } from "../memory/recall/speaker-statements.js";
import { besideLaterStatements, laterByQuestion, statementsToLookPast } from "./later-statements.js";

const later = (memoryId: string): LaterStatement => ({
  memoryId,
  content: memoryId,
  at: new Date(0),
  foundBy: "statement",
  similarity: 0.6,
  sources: [],
});

describe("statements and what the user said after them", () => {
  it("looks past facts and the user's own first-person turns, never a question or the assistant's words", () => {
    const recalled = [
      recalledTurn("question", { content: "user: Which paint is best for a bathroom ceiling?" }),
      recalledTurn("reply", { role: "assistant", content: "assistant: I would use a mould-resistant emulsion." }),
      recalledTurn("statement", { content: "user: We painted the hallway sage green. Does that go with oak?" }),
      recalledTurn("fact", {
        type: "semantic",
        subtype: "profile",
        role: null,
        content: "User lives in Derby.",
        lastConfirmedAt: new Date(5),
      }),
    ];
    // Facts first, however far down they rank: the window packs them in a section of their own.
    expect(statementsToLookPast(recalled, 5)).toEqual([
      { id: "fact", after: new Date(5) },
      { id: "statement", after: new Date(0) },
    ]);
    // As many as the share pays for, facts taking their places first.
    expect(statementsToLookPast(recalled, 1).map((anchor) => anchor.id)).toEqual(["fact"]);
    expect(statementsToLookPast(recalled, 2).map((anchor) => anchor.id)).toEqual(["fact", "statement"]);
    expect(saysSomethingOfSpeaker("Is it too late to plant garlic?")).toBe(false);
    expect(saysSomethingOfSpeaker("My garlic is sprouting already!")).toBe(true);
  });

  it("shows a later statement beside its statement once, and drops its own place further down", () => {
    const recalled = ["a", "b", "c", "d"].map((id) => recalledTurn(id));
    const { candidates, laterOf } = besideLaterStatements(
      recalled,
      new Map([
        ["a", [later("c")]],
        ["b", [later("c")]],
      ]),
    );
    expect(candidates.map((memory) => memory.id)).toEqual(["a", "b", "d"]);
    expect([...laterOf].map(([id, statement]) => `${id}<-${statement.memoryId}`)).toEqual(["a<-c"]);
  });

  it("keeps a later statement recall ranked ahead of its statement where it is, without a note", () => {
    const recalled = ["newer", "older"].map((id) => recalledTurn(id));
    const { candidates, laterOf } = besideLaterStatements(recalled, new Map([["older", [later("newer")]]]));
    expect(candidates.map((memory) => memory.id)).toEqual(["newer", "older"]);
    expect(laterOf.size).toBe(0);
  });

  it("shows a fact's later statement beside it even when recall ranked that turn ahead of the fact", () => {
    const recalled = [
      recalledTurn("newer"),
      recalledTurn("fact", { type: "semantic", subtype: "profile", role: null, content: "User keeps bees." }),
    ];
    const { candidates, laterOf } = besideLaterStatements(recalled, new Map([["fact", [later("newer")]]]));
    expect(candidates.map((memory) => memory.id)).toEqual(["fact"]);
    expect(laterOf.get("fact")?.memoryId).toBe("newer");
  });

  it("finds a later statement by the question for an own statement that has none by meaning: the newest said since, elsewhere", () => {
    const at = (day: number) => new Date(Date.UTC(2025, 0, day));
    const said = (id: string, day: number, sessionId: string, similarity: number) =>
      recalledTurn(id, { sessionId, validAt: at(day), lastConfirmedAt: at(day), similarity });
    const first = said("first", 10, "a", 0.6);
    const sameSession = said("same-session", 11, "a", 0.55);
    const older = said("older", 2, "b", 0.5);
    const since = said("since", 40, "c", 0.3);
    const sooner = said("sooner", 20, "d", 0.45);
    const other = said("other", 5, "e", 0.58);
    const own = [first, other, sameSession, sooner, older, since];
    const found = laterByQuestion([first, other], own, new Map([["other", [later("by-meaning")]]]));
    // The newest, not the nearest: the question asks how things stand now.
    expect(found.get("first")).toEqual([
      { memoryId: "since", content: "since", at: at(40), foundBy: "question", similarity: 0.3, sources: [] },
    ]);
    // One found by meaning stays.
    expect(found.get("other")?.map((statement) => statement.memoryId)).toEqual(["by-meaning"]);
    // Nothing said since elsewhere: none.
    expect(laterByQuestion([since], own, new Map()).has("since")).toBe(false);
  });
});
