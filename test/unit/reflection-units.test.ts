import { describe, expect, it } from "vitest";
import { applyEvidence, newTrait, type TraitState } from "../../src/memory/lifecycle/trait-stages.js";
import { extractionJsonSchema, parseExtraction } from "../../src/providers/extraction-output.js";
import { extractByRules } from "../../src/providers/offline/rule-extractor.js";
import { ProviderError } from "../../src/providers/types.js";

const day = (n: number) => new Date(Date.UTC(2024, 0, 1 + n));

describe("trait lifecycle", () => {
  it("promotes trend → emerging → established → core with supporting evidence", () => {
    let state: TraitState = newTrait({ direction: "supporting", quality: "A", observedAt: day(0) });
    expect(state).toMatchObject({ stage: "trend", reinforcements: 1, windowEnd: day(14) });
    const stages = [state.stage];
    for (let i = 1; i < 12; i++) {
      state = applyEvidence(state, { direction: "supporting", quality: "A", observedAt: day(i) });
      stages.push(state.stage);
    }
    expect([...new Set(stages)]).toEqual(["trend", "emerging", "established", "core"]);
    expect(state.windowEnd).toBeNull();
    expect(state.confidence).toBeGreaterThan(0.85);
  });

  it("restarts a trend whose window closed before a second observation", () => {
    const state = newTrait({ direction: "supporting", quality: "B", observedAt: day(0) });
    const late = applyEvidence(state, { direction: "supporting", quality: "B", observedAt: day(20) });
    expect(late).toMatchObject({ stage: "trend", reinforcements: 1, windowStart: day(20) });
  });

  it("weakens with contradictions and dissolves when they outnumber reinforcements", () => {
    let state = applyEvidence(newTrait({ direction: "supporting", quality: "B", observedAt: day(0) }), {
      direction: "supporting",
      quality: "B",
      observedAt: day(1),
    });
    const confident = state.confidence;
    state = applyEvidence(state, { direction: "contradicting", quality: "A", observedAt: day(2) });
    expect(state.confidence).toBeLessThan(confident);
    expect(state.stage).toBe("emerging");
    state = applyEvidence(state, { direction: "contradicting", quality: "A", observedAt: day(3) });
    state = applyEvidence(state, { direction: "contradicting", quality: "A", observedAt: day(4) });
    expect(state.stage).toBe("dissolved");
    expect(applyEvidence(state, { direction: "supporting", quality: "A", observedAt: day(5) })).toBe(state);
  });

  it("weighs evidence by quality", () => {
    const base = newTrait({ direction: "supporting", quality: "B", observedAt: day(0) });
    const strong = applyEvidence(base, { direction: "supporting", quality: "A", observedAt: day(1) });
    const weak = applyEvidence(base, { direction: "supporting", quality: "D", observedAt: day(1) });
    expect(strong.confidence).toBeGreaterThan(weak.confidence);
  });
});

describe("parseExtraction (Gemini output)", () => {
  const extractor = { name: "gemini", version: "test-model prompt 0", model: "test-model", prompt_version: "0" };
  const valid = {
    facts: [{ type: "preference", key: "Attitude Cats", value: { polarity: 1 }, content: "User loves cats.", source_seqs: [3] }],
  };

  it("accepts JSON wrapped in code fences or prose and normalises keys", () => {
    const parsed = parseExtraction(`Here you go:\n\`\`\`json\n${JSON.stringify(valid)}\n\`\`\``, new Set([3]), extractor);
    expect(parsed.facts[0]).toMatchObject({ key: "attitude_cats", confidence: 0.8, operation: "ADD" });
    expect(parsed.extractor).toEqual(extractor);
    expect(parsed.insights).toEqual([]);
  });

  it("keeps the five operations against the known facts as the model states them", () => {
    const fact = (operation: string, key: string) => ({ ...valid.facts[0], key, operation });
    const parsed = parseExtraction(
      JSON.stringify({ facts: [fact("ADD", "a"), fact("UPDATE", "b"), fact("NOOP", "c"), fact("DELETE", "d"), fact("CORRECT", "e")] }),
      new Set([3]),
      extractor,
    );
    expect(parsed.facts.map((found) => `${found.key} ${found.operation}`)).toEqual([
      "a ADD",
      "b UPDATE",
      "c NOOP",
      "d DELETE",
      "e CORRECT",
    ]);
    expect(() => parseExtraction(JSON.stringify({ facts: [fact("MERGE", "e")] }), new Set([3]), extractor)).toThrow(
      /does not match the schema/,
    );
    // The structured-output schema the providers send offers the model all five.
    expect(JSON.stringify(extractionJsonSchema())).toContain('"enum":["ADD","UPDATE","DELETE","CORRECT","NOOP"]');
  });

  it.each([
    ["not json at all", /not JSON/],
    [JSON.stringify({ facts: [{ type: "opinion", key: "k", value: 1, content: "c", source_seqs: [3] }] }), /does not match the schema/],
    [JSON.stringify({ facts: [{ ...valid.facts[0], source_seqs: [] }] }), /does not match the schema/],
    [JSON.stringify({ facts: [{ ...valid.facts[0], source_seqs: [99] }] }), /cites turns that were not given: 99/],
  ])("refuses %s as a whole, retryably", (text, message) => {
    let error: unknown;
    try {
      parseExtraction(text, new Set([3]), extractor);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});

describe("rule extractor", () => {
  const extract = (...texts: string[]) => extractByRules({ turns: texts.map((content, i) => ({ role: "user", content, seq: i + 1 })) });

  it("reads likes, dislikes, negations and changes of mind under one key", () => {
    const facts = extract("I love newts.", "I really hate newts now.", "I don't like mushrooms.", "I no longer like coffee.").facts;
    expect(facts.map((fact) => [fact.key, fact.content])).toEqual([
      ["attitude:newt", "User loves newts."],
      ["attitude:newt", "User hates newts."],
      ["attitude:mushroom", "User doesn't like mushrooms."],
      ["attitude:coffee", "User no longer likes coffee."],
    ]);
  });

  it("reads profile statements and rules; a request to remember keeps only what the readers parse (the turn itself stays an episode)", () => {
    const facts = extract(
      "My name is Ana and I live in Berlin.",
      "Remember that my birthday is on March 3rd.",
      "Always answer in Estonian.",
      "Remember that the meeting moved to Friday.",
    ).facts;
    expect(facts.map((fact) => fact.key)).toEqual(["profile:name", "profile:location", "profile:birthday", "rule:answer_in_estonian"]);
  });

  it("ignores the assistant, pronoun objects and sentences with no statement", () => {
    const result = extractByRules({
      turns: [
        { role: "assistant", content: "I love helping you.", seq: 1 },
        { role: "user", content: "I love it! What a day.", seq: 2 },
      ],
    });
    expect(result).toEqual({ facts: [], insights: [], traits: [], entities: [], relations: [] });
  });

  it("turns preferences and habits into trait evidence with a quality", () => {
    const traits = extract("I absolutely love hiking.", "I sometimes skip breakfast.").traits;
    expect(traits.map((trait) => [trait.key, trait.direction, trait.quality])).toEqual([
      ["likes:hiking", "supporting", "A"],
      ["dislikes:hiking", "contradicting", "A"],
      ["behavior:skip_breakfast", "supporting", "C"],
    ]);
  });
});
