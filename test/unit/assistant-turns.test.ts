import { describe, expect, it } from "vitest";
import { demoteAssistantTurns } from "../../src/context/memory-candidates.js";
import { readQuestion } from "../../src/context/question.js";
import type { RecalledMemory } from "../../src/memory/recall/hybrid-recall.js";
import { recalledTurn } from "../fixtures/recalled-memory.js";

const turn = (id: string, role: string | null, coverage = 0): RecalledMemory => recalledTurn(id, { role, coverage });
const asked = (query: string) => readQuestion(query, new Date("2024-01-10T12:00:00Z"));

describe("the assistant's turns in a context window", () => {
  const recalled = [turn("maya starts school", "user"), turn("congratulations", "assistant"), turn("lisbon", "user"), turn("fact", null)];

  it("sink behind the user's own statements", () => {
    expect(demoteAssistantTurns(recalled, asked("When does Maya start school?")).map((memory) => memory.id)).toEqual([
      "maya starts school",
      "lisbon",
      "congratulations",
      "fact",
    ]);
  });

  it("keep their rank when they hold the query's words (the other speaker's answer)", () => {
    const painted = [turn("we went hiking", "user"), turn("I painted a sunrise", "assistant", 0.4), turn("fact", null)];
    expect(demoteAssistantTurns(painted, asked("What did Melanie paint?"))).toEqual(painted);
  });

  it("keep their rank when the query asks what the assistant said", () => {
    for (const query of ["What did you recommend for Maya?", "What was the assistant's advice?"])
      expect(demoteAssistantTurns(recalled, asked(query))).toEqual(recalled);
  });
});
