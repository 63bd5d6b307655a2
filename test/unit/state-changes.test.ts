import { describe, expect, it } from "vitest";
import { readClauses } from "../../src/providers/offline/facts/clauses.js";
import { stateChanges } from "../../src/providers/offline/facts/state-changes.js";
import { extractByRules } from "../../src/providers/offline/rule-extractor.js";
import type { KnownFact } from "../../src/providers/types.js";

const changesOf = (text: string) =>
  readClauses(text)
    .filter((clause) => !clause.unasserted)
    .flatMap((clause) => stateChanges(clause))
    .map(
      (change) => `${change.change}${change.thing ? `: ${change.thing}` : ""}${change.names.length ? ` (${change.names.join(", ")})` : ""}`,
    );

/** What the user says in order, each seeing the facts the earlier ones left; the facts written last. */
function said(...messages: string[]): { facts: string[]; current: string[] } {
  let known: KnownFact[] = [];
  let last: string[] = [];
  for (const content of messages) {
    const { facts } = extractByRules({ turns: [{ role: "user", content, seq: 1 }], knownFacts: known });
    last = facts.map((fact) => `${fact.operation} ${fact.key}: ${fact.content}`);
    for (const fact of facts) {
      known = known.filter((item) => item.key !== fact.key);
      if (fact.operation === "ADD") known.unshift({ key: fact.key, value: fact.value, content: fact.content });
    }
  }
  return { facts: last, current: known.map((fact) => fact.content) };
}

describe("changes of state read from the structure of a clause", () => {
  it("names the class and the thing, whatever the verb", () => {
    expect(changesOf("Three months ago I finally kicked the habit and stopped smoking.")).toEqual(["cessation: smoking"]);
    expect(changesOf("I gave up on Japanese, too hard.")).toEqual(["cessation: Japanese"]);
    expect(changesOf("I haven't climbed in over a year.")).toEqual(["cessation: climbing"]);
    expect(changesOf("I've stopped taking the bus since I got my bike.")).toEqual(["cessation: bus"]);
    expect(changesOf("I used to go horseback riding with my dad.")).toEqual(["past: horseback riding"]);
    expect(changesOf("Rufus passed away on Sunday.")).toEqual(["death (Rufus)"]);
    expect(changesOf("We had to put Mittens down last week.")).toEqual(["death (Mittens)"]);
    expect(changesOf("Sam and I called it quits.")).toEqual(["breakup (Sam)"]);
    expect(changesOf("I sold the Mazda last week.")).toEqual(["sale: Mazda"]);
    expect(changesOf("Someone stole my PlayStation.")).toEqual(["sale: PlayStation"]);
    expect(changesOf("I dropped out of college in my second year.")).toEqual(["studies-ended: college"]);
    expect(changesOf("I handed in my notice at Spotify.")).toEqual(["job-left"]);
    expect(changesOf("We left Queens in March.")).toEqual(["place-left"]);
    expect(changesOf("I've gone off sushi since I got food poisoning.")).toEqual(["taste-ended: sushi"]);
    expect(changesOf("I'm so over country music.")).toEqual(["taste-ended: country music"]);
  });

  it("reads nothing into the neighbours of a change", () => {
    for (const text of [
      "My sister stopped drinking tea.",
      "I stopped by the piano shop yesterday.",
      "I'm over the moon!",
      "I lost my keys again.",
      "I passed the exam.",
      "My phone died.",
      "Should I quit smoking?",
      "If I sold the car I could travel.",
    ])
      expect(changesOf(text), text).toEqual([]);
  });
});

describe("resolved against the user's current facts", () => {
  it("a stopped consumption is a fact of its own that supersedes the habit", () => {
    expect(said("I smoke a pack a day.", "I finally kicked the habit and stopped smoking.").facts).toEqual([
      "ADD consumes:smoking: User quit smoking.",
    ]);
  });

  it("a death, a break-up, a sale retract what names the same one or thing, and only when it is held", () => {
    expect(said("We have a labrador named Rufus.", "Rufus passed away on Sunday.").facts).toEqual([
      "DELETE pet:labrador:rufus: Rufus died.",
    ]);
    expect(said("Rufus passed away on Sunday.").facts).toEqual([]);
    expect(said("My boyfriend Sam is a chef.", "Sam and I called it quits.").facts).toEqual([
      "DELETE profile:partner: User and Sam separated.",
    ]);
    expect(said("I drive a red Mazda.", "I sold the Mazda last week.").current).toEqual([]);
    expect(said("I drive a red Mazda.", "I sold my old bike.").current).toEqual(["User drives a red Mazda."]);
  });

  it("a job left ends the employer named (or any, for 'my job'), not another; retiring is a fact", () => {
    expect(said("I work at Spotify.", "I handed in my notice at Spotify and my last day was Friday.").current).toEqual([]);
    expect(said("I work at Spotify.", "I left early from IKEA today.").current).toEqual(["User works at Spotify."]);
    expect(said("I teach at a primary school.", "I retired last year after thirty years of teaching.").current).toEqual([
      "User is retired.",
    ]);
  });

  it("a correction restates the fact that held the wrong value", () => {
    expect(said("I live in Porto.", "Sorry, I meant Braga, not Porto.").current).toEqual(["User lives in Braga."]);
    expect(said("I work at Deloitte.", "Correction: it's KPMG, not Deloitte.").current).toEqual(["User works at KPMG."]);
    expect(said("My daughter is called Mia.", "Actually her name is Maya, autocorrect.").current).toEqual([
      "User's daughter is named Maya.",
    ]);
    expect(said("I live in Porto.", "Sorry, I meant Thursday, not Friday.").current).toEqual(["User lives in Porto."]);
  });

  it("studies that end, a taste that goes and one that comes", () => {
    expect(said("I'm studying nursing at Monash.", "I graduated in December!").current).toEqual(["User graduated."]);
    expect(said("I love sushi.", "I've gone off sushi since I got food poisoning.").current).toEqual(["User no longer likes sushi."]);
    expect(said("I hate running.", "I've come around on running, it's actually great.").current).toEqual([
      "User has come to like running.",
    ]);
  });
});
