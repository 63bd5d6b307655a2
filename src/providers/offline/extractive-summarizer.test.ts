import { describe, expect, it } from "vitest";
import { summarizeExtractively } from "./extractive-summarizer.js";

const turns = [
  { role: "Dagny", content: "Hey Fen! Nice to catch you. I went to a bereavement support group on Monday and it moved me a lot." },
  { role: "Fen", content: "Oh wow, Dagny! What made it so moving?" },
  { role: "Dagny", content: "Hearing the others talk about their losses helped. I decided to keep going every fortnight." },
  { role: "Fen", content: "Haha yeah. That sounds good. I carved a wooden heron last winter, it still sits by my desk." },
];

describe("summarizeExtractively", () => {
  it("only uses sentences from the turns, attributed to their speakers, in order", () => {
    const summary = summarizeExtractively(turns, 200);
    const quoted = [...summary.matchAll(/(\w+) said: "([^"]+)"/g)];
    expect(quoted.length).toBeGreaterThan(0);
    for (const [, speaker, text] of quoted) {
      const own = turns
        .filter((turn) => turn.role === speaker)
        .map((turn) => turn.content)
        .join(" ");
      for (const sentence of (text as string).split(/(?<=[.!?])\s+/)) expect(own).toContain(sentence);
    }
    expect(summary.indexOf("support group")).toBeLessThan(summary.indexOf("decided"));
  });

  it("respects the word limit and keeps the decision", () => {
    const summary = summarizeExtractively(turns, 30);
    expect(summary.split(/\s+/).length).toBeLessThanOrEqual(30);
    expect(summary).toContain("I decided to keep going every fortnight.");
  });

  it("drops small talk and is deterministic", () => {
    const summary = summarizeExtractively(turns, 200);
    expect(summary).not.toMatch(/Hey Fen|Haha/);
    expect(summarizeExtractively(turns, 200)).toBe(summary);
  });

  it("shortens a single overlong sentence rather than returning nothing", () => {
    const long = { role: "user", content: `I ${"really ".repeat(100)}want to remember this.` };
    const summary = summarizeExtractively([long], 20);
    expect(summary.split(/\s+/).length).toBeLessThanOrEqual(21);
    expect(summary.endsWith('…"')).toBe(true);
  });

  it("keeps a fact said once over many near-identical sentences", () => {
    const repetitive = Array.from({ length: 30 }, (_, i) => ({
      role: "user",
      content: i === 4 ? "Please remember that my cat is called Miso." : `Turn ${i} talks about planning a garden with tomatoes and basil.`,
    }));
    const summary = summarizeExtractively(repetitive, 40);
    expect(summary).toContain("my cat is called Miso");
    expect(summary.match(/garden/g)?.length).toBeLessThanOrEqual(2);
  });

  it("returns an empty summary when there is nothing to summarise", () => {
    expect(summarizeExtractively([{ role: "user", content: "ok" }], 200)).toBe("");
  });
});
