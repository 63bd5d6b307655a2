import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { excerptOf, queryWords } from "./excerpts.js";
import { o200kTokenizer } from "./o200k-tokenizer.js";

const reply = [
  "assistant: Great question, there is a lot to think about when you plan a garden shed.",
  "First, check whether your council needs planning permission for anything over two and a half metres.",
  "Pressure-treated timber lasts longest, but cedar weathers to a lovely silver.",
  "For the roof, felt shingles are cheap while EPDM rubber lasts twenty years.",
  "Finally, leave a gap under the floor so air can move and the joists stay dry.",
].join(" ");

describe("excerptOf", () => {
  it("keeps the sentences that hold the query's words, in order, and marks the gaps", () => {
    const cut = excerptOf(reply, queryWords("What did you say about the shed roof?"), o200kTokenizer, { maxTokens: 45 });
    expect(cut.excerpt).toBe(true);
    expect(cut.text).toBe(
      "assistant: Great question, there is a lot to think about when you plan a garden shed. … For the roof, felt shingles are cheap while EPDM rubber lasts twenty years. …",
    );
  });

  it("matches inflected forms of the query's words", () => {
    const cut = excerptOf(reply, queryWords("which roofs are cheap"), o200kTokenizer, { maxTokens: 30 });
    expect(cut.text).toContain("EPDM rubber");
  });

  it("keeps the opening when no sentence holds a query word", () => {
    const cut = excerptOf(reply, queryWords("weatherproofing ideas"), o200kTokenizer, { maxTokens: 30 });
    expect(cut.text.startsWith("assistant: Great question")).toBe(true);
    expect(cut.text.endsWith("…")).toBe(true);
  });

  it("cuts the one sentence that holds the query's words at a word, with matchingOnly, rather than show others when it does not fit", () => {
    const turn =
      "user: Thanks for the tips on tyres yesterday. Since the spring we have sold the estate and now ride an electric cargo bike to the school gates every morning. The weather has been mild.";
    const asked = queryWords("Which bike do we ride?");
    const cut = excerptOf(turn, asked, o200kTokenizer, { maxTokens: 20, matchingOnly: true });
    expect(cut.text.startsWith("user: Since the spring we have sold the estate")).toBe(true);
    expect(cut.text).not.toContain("tyres");
    expect(o200kTokenizer.count(cut.text)).toBeLessThanOrEqual(20);
    // Without it, the sentences that fit are shown, as a memory's longer excerpt shows them.
    expect(excerptOf(turn, asked, o200kTokenizer, { maxTokens: 20 }).text).toContain("tyres");
  });

  it("packs a memory that fits whole, and every memory whole when excerpts are off", () => {
    const short = "user: My sister looks after the allotment on Sundays.";
    expect(excerptOf(short, queryWords("allotment"), o200kTokenizer, { maxTokens: 40 })).toEqual({ text: short, excerpt: false });
    expect(excerptOf(reply, queryWords("roof"), o200kTokenizer, { maxTokens: 0 })).toEqual({ text: reply, excerpt: false });
  });

  it("never exceeds its budget, whatever the text", () => {
    const sentence = fc
      .array(fc.constantFrom("shed", "roof", "the", "Lisbon", "naïve", "🚲", "timber", "2023-05-08"), { minLength: 1, maxLength: 30 })
      .map((words) => `${words.join(" ")}.`);
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 12 }), fc.integer({ min: 8, max: 80 }), (sentences, maxTokens) => {
        const cut = excerptOf(`user: ${sentences.join(" ")}`, queryWords("roof timber"), o200kTokenizer, { maxTokens });
        expect(o200kTokenizer.count(cut.text)).toBeLessThanOrEqual(maxTokens + 2);
      }),
    );
  });
});
