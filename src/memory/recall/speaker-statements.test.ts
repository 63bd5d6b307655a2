import { describe, expect, it } from "vitest";
import { type LaterStatementRow, laterStatementsOf } from "./later-statements.js";
import { saysSomethingOfNamed, saysSomethingOfSomeone, saysSomethingOfSpeaker } from "./speaker-statements.js";

describe("turns that state something", () => {
  it("reads a statement of the speaker in the first person, not a question", () => {
    expect(saysSomethingOfSpeaker("Our canoe has a crack in the hull.")).toBe(true);
    expect(saysSomethingOfSpeaker("Should we patch the canoe ourselves?")).toBe(false);
    expect(saysSomethingOfSpeaker("His canoe has a crack in the hull.")).toBe(false);
  });

  it("reads a statement of someone the speaker speaks of by her or him, not a question nor a thing", () => {
    expect(saysSomethingOfSomeone("His canoe has a crack in the hull.")).toBe(true);
    expect(saysSomethingOfSomeone("She paddles to the island on Sundays now.")).toBe(true);
    expect(saysSomethingOfSomeone("Would she like a lighter paddle?")).toBe(false);
    expect(saysSomethingOfSomeone("The canoe has a crack in the hull.")).toBe(false);
  });

  it("reads a statement of someone by name, the whole name, not a question", () => {
    expect(saysSomethingOfNamed("Kofi sold the canoe in May.", ["Kofi"])).toBe(true);
    expect(saysSomethingOfNamed("The canoe went to Kofi in May.", ["Kofi"])).toBe(true);
    expect(saysSomethingOfNamed("Did Grace call? It will rain by grace of the wind.", ["Grace"])).toBe(false);
    expect(saysSomethingOfNamed("Did Kofi sell the canoe?", ["Kofi"])).toBe(false);
    expect(saysSomethingOfNamed("Kofiya sold the canoe in May.", ["Kofi"])).toBe(false);
    expect(saysSomethingOfNamed("Dr. Ansah (the vet) came by.", ["Dr. Ansah (the vet)"])).toBe(true);
    expect(saysSomethingOfNamed("Kofi sold the canoe in May.", [])).toBe(false);
  });

  const row = (id: string, content: string, similarity: number, names: string[] | null = null): LaterStatementRow => ({
    statement_id: "s",
    id,
    content,
    valid_at: "2025-05-01T00:00:00Z",
    similarity,
    names,
    sources: null,
  });

  it("keeps a later turn naming whom the statement named over a nearer one that does not", () => {
    const later = laterStatementsOf(
      [row("near", "We bought a second canoe for the lake.", 0.8), row("named", "Kofi sold the canoe in May.", 0.5, ["Kofi"])],
      2,
    );
    expect(later.get("s")?.map((statement) => statement.memoryId)).toEqual(["named", "near"]);
  });

  it("keeps a later turn about her over a nearer question about her", () => {
    const later = laterStatementsOf(
      [row("asks", "Is her paddle too heavy for a ten-year-old?", 0.7), row("says", "She joined the rowing club at the lake in May.", 0.6)],
      1,
    );
    expect(later.get("s")?.map((statement) => statement.memoryId)).toEqual(["says"]);
  });
});
