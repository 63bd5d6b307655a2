import { describe, expect, it } from "vitest";
import { FACT_CASES } from "../../eval/facts/cases.js";
import { HELD_OUT_FACT_CASES } from "../../eval/facts/held-out-cases.js";
import { scoreFactCases } from "../../eval/facts/score.js";
import type { KnownFact } from "../types.js";
import { extractByRules } from "./rule-extractor.js";

const facts = (content: string, knownFacts: KnownFact[] = []) =>
  extractByRules({ turns: [{ role: "user", content, seq: 1 }], knownFacts }).facts.map(
    (fact) => `${fact.operation} ${fact.key}: ${fact.content}`,
  );

describe("offline fact extraction", () => {
  it.each([
    ["evaluation set", FACT_CASES],
    ["held-out set", HELD_OUT_FACT_CASES],
  ])("meets the targets on the %s: precision ≥ 0.95, recall ≥ 0.7, no wrong supersede", (_label, cases) => {
    const score = scoreFactCases(cases, extractByRules);
    expect(score.failures.filter((failure) => failure.startsWith("wrong"))).toEqual([]);
    expect(score.precision).toBeGreaterThanOrEqual(0.95);
    expect(score.recall).toBeGreaterThanOrEqual(0.7);
    expect(score.wrongSupersedes).toBe(0);
  });

  it("reads a job change in one message: the new job wins, leaving the old one retracts nothing else", () => {
    const nurse: KnownFact[] = [
      { key: "profile:occupation", value: "nurse", content: "User works as a nurse." },
      { key: "profile:employer", value: "the hospital", content: "User works at the hospital." },
    ];
    expect(facts("Big news: I just started a new job as a software engineer at Acme. I quit the hospital last week.", nurse)).toEqual([
      "ADD profile:occupation: User works as a software engineer.",
      "ADD profile:employer: User works at Acme.",
    ]);
    expect(facts("I quit the hospital last week.", nurse)).toEqual(["DELETE profile:employer: User no longer works at the hospital."]);
    expect(facts("I quit Google last year.", nurse)).toEqual([]);
  });

  it("never takes an adjective, a nationality or a lower-case phrase for a name or a place", () => {
    expect(facts("My partner is very supportive of my career change.")).toEqual([]);
    expect(facts("My partner is Italian.")).toEqual([]);
    expect(facts("I'm Happy with the plan.")).toEqual([]);
    expect(facts("I live in fear of spiders.")).toEqual([]);
    expect(facts("My partner is Sam.")).toEqual(["ADD profile:partner: User's partner is Sam."]);
  });

  it("says nothing for questions, hypotheticals, plans, quotations, reported speech and other people", () => {
    for (const sentence of [
      "Should I move to Austin?",
      "If I lived in Tokyo I'd eat sushi every day.",
      "I'm thinking about moving to Berlin.",
      "My boss said 'I love Mondays'.",
      "My boss said he lives in Paris.",
      "My sister loves horses.",
      "I would love a coffee right now.",
    ]) {
      expect(facts(sentence), sentence).toEqual([]);
    }
  });

  it("retracts across turns of one batch: a later turn sees what an earlier one said", () => {
    const extraction = extractByRules({
      turns: [
        { role: "user", content: "I live in Austin.", seq: 1 },
        { role: "assistant", content: "Noted!", seq: 2 },
        { role: "user", content: "I don't live in Austin anymore.", seq: 3 },
      ],
    });
    expect(extraction.facts.map((fact) => [fact.operation, fact.key, fact.source_seqs])).toEqual([
      ["ADD", "profile:location", [1]],
      ["DELETE", "profile:location", [3]],
    ]);
  });
});
