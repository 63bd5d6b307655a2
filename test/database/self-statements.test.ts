import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { factSessions } from "../fixtures/fact-sessions.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/**
 * Kinds of self-statement through the API (embedded default, or Postgres under
 * scripts/test-postgres.sh), and, apart, changes of state from the held-out part of the fresh set
 * (src/eval/facts/labelled/fresh-changes.txt, streams that `partOf` puts in "held-out"): sentences no
 * rule was tuned on when they were first scored. The four it missed then (an activity ruled out,
 * a taste that "doesn't do it" any more, "no longer with" an employer, "lost interest") were read
 * as classes afterwards, so they are no longer held out: docs/evaluation.md scores a set written
 * after that instead.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

const { session, current, retracted } = factSessions(() => runtime);
const mentioning = (contents: string[], pattern: RegExp) => contents.filter((content) => pattern.test(content));

describe("kinds of self-statement", () => {
  it("the user's taste said beside someone else's is the user's, and only theirs", async () => {
    await session("beside", 10, ["My wife loves jazz, but I can't stand it.", "My husband is into golf; I prefer tennis."]);
    const now = await current("beside");
    expect(now).toEqual(expect.arrayContaining(["User can't stand jazz.", "User prefers tennis."]));
    expect(mentioning(now, /golf|loves jazz/)).toEqual([]);
  });

  it("family and pets introduced in passing, by name", async () => {
    await session("passing", 10, [
      "I took my daughter Mia to the zoo on Saturday.",
      "I was walking my dog Biscuit when it started raining.",
    ]);
    expect(await current("passing")).toEqual(expect.arrayContaining(["User's daughter is named Mia.", "User has a dog named Biscuit."]));
  });

  it("what the user speaks, owns, studies and took up", async () => {
    await session("kinds", 10, [
      "I speak fluent Spanish and some French.",
      "I own a Kindle.",
      "I'm studying architecture.",
      "I took up pottery last spring.",
    ]);
    expect(await current("kinds")).toEqual(
      expect.arrayContaining([
        "User speaks Spanish.",
        "User speaks French.",
        "User has a Kindle.",
        "User studies architecture.",
        "User took up pottery.",
      ]),
    );
  });

  it("controls: the same kinds said of someone else, or not of a hobby, write nothing of them", async () => {
    await session("others", 10, ["My sister speaks Italian.", "My brother took up boxing.", "I took up the offer.", "I speak my mind."]);
    expect(mentioning(await current("others"), /Italian|boxing|offer|mind/)).toEqual([]);
  });
});

describe("held-out changes of state (never tuned on)", () => {
  it("break-up said as a status: single again ends the girlfriend (breakup-3)", async () => {
    await session("h-single", 10, ["My girlfriend is Priya."]);
    await session("h-single", 40, ["I'm single again."]);
    const now = await current("h-single");
    expect(mentioning(now, /Priya/)).toEqual([]);
    expect(mentioning(await retracted("h-single"), /Priya/)).not.toEqual([]);
  });

  it("sale by theft: a stolen thing is no longer owned (sale-3)", async () => {
    await session("h-stolen", 10, ["I have a PlayStation."]);
    expect(mentioning(await current("h-stolen"), /PlayStation/)).not.toEqual([]);
    await session("h-stolen", 40, ["Someone stole my PlayStation."]);
    expect(mentioning(await current("h-stolen"), /PlayStation/)).toEqual([]);
  });

  it("retirement ends the teaching job (leaving-3)", async () => {
    await session("h-retired", 10, ["I teach at a primary school."]);
    await session("h-retired", 40, ["I retired last year after thirty years of teaching."]);
    const now = await current("h-retired");
    expect(mentioning(now, /retired/)).not.toEqual([]);
    expect(mentioning(now, /primary school|teaches/)).toEqual([]);
  });

  it("a change of taste: come around on something hated (taste-2)", async () => {
    await session("h-taste", 10, ["I hate running."]);
    await session("h-taste", 40, ["I've come around on running, it's actually great."]);
    const now = await current("h-taste");
    expect(now).not.toContain("User hates running.");
    expect(mentioning(now, /running/)).not.toEqual([]);
  });

  it("controls: leaving a phone at work, disliking something else end nothing (leaving-5, control-6)", async () => {
    await session("h-steady", 10, ["I work at Lidl.", "I love cats."]);
    await session("h-steady", 40, ["I left my phone at Lidl.", "I don't like dogs much."]);
    expect(await current("h-steady")).toEqual(expect.arrayContaining(["User works at Lidl.", "User loves cats."]));
    expect(await retracted("h-steady")).toEqual([]);
  });

  it("an activity ruled out ('tennis is off the table for good') ends (cessation-3)", async () => {
    await session("h-knee", 10, ["I play tennis twice a week."]);
    await session("h-knee", 40, ["My knee is shot so tennis is off the table for good."]);
    expect(mentioning(await current("h-knee"), /tennis/)).toEqual([]);
  });

  it("a taste ended without a verb of taste ('don't do it for me these days') ends (negation-2)", async () => {
    await session("h-horror", 10, ["I love horror films."]);
    await session("h-horror", 40, ["Horror films don't do it for me these days."]);
    expect(await current("h-horror")).not.toContain("User loves horror films.");
  });

  it("'no longer with' an employer ends the employer (leaving-4)", async () => {
    await session("h-council", 10, ["I work for the city council."]);
    await session("h-council", 40, ["I'm no longer with the council."]);
    expect(mentioning(await current("h-council"), /council/)).toEqual([]);
  });

  it("'lost interest' beside a lapse ends the hobby and writes no taste for 'interest' (cessation-4)", async () => {
    await session("h-climb", 10, ["I go climbing on Tuesdays."]);
    await session("h-climb", 40, ["I haven't climbed in over a year, I've lost interest."]);
    const now = await current("h-climb");
    expect(mentioning(now, /interest/)).toEqual([]);
    expect(mentioning(now, /climbing/)).toEqual([]);
  });
});
