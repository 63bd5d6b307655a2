import { describe, expect, it } from "vitest";
import { kindsAskedAbout, statementPattern } from "./statement-kinds.js";

/** Postgres' `~*` with `\m`/`\M` word boundaries, as JavaScript reads it: for testing the patterns' words. */
const matches = (kind: Parameters<typeof statementPattern>[0], text: string) =>
  new RegExp(statementPattern(kind).replace(/\\m/g, "\\b").replace(/\\M/g, "\\b"), "i").test(text);

describe("kinds of statement", () => {
  it("reads the kind a question asks about without naming the thing", () => {
    expect(kindsAskedAbout("Which podcasts am I into lately?")).toContain("taste");
    expect(kindsAskedAbout("Any suggestions for a weekend away?")).toContain("taste");
    expect(kindsAskedAbout("How often do I water the ferns?")).toContain("habit");
    expect(kindsAskedAbout("What was my savings target for March?")).toContain("goal");
    expect(kindsAskedAbout("Where did I leave the spare key?")).toEqual([]);
  });

  it("finds statements of each kind in the user's words, not a mere mention", () => {
    expect(matches("taste", "Honestly my favourite board game is Carcassonne.")).toBe(true);
    expect(matches("taste", "I'm really into bouldering these days.")).toBe(true);
    expect(matches("taste", "Can you list some board games?")).toBe(false);
    expect(matches("habit", "Every morning I stretch for ten minutes.")).toBe(true);
    expect(matches("habit", "I stretched once.")).toBe(false);
    expect(matches("goal", "I'm aiming to run a half marathon by May.")).toBe(true);
    expect(matches("goal", "The match ended in a draw.")).toBe(false);
  });
});
