import { describe, expect, it } from "vitest";
import { contradictedBy } from "../../src/memory/contradictions/contradiction-rules.js";
import { sameThing, subjectOf } from "../../src/providers/facts/fact-subject.js";

const held = (key: string, content: string, value: unknown = content) => ({ key, value, content });
const keysOf = (found: { held: { key: string } }[]) => found.map((item) => item.held.key);

describe("what a fact is about", () => {
  it("reads the thing from the key and the value, as word roots, and the polarity from the value or the words", () => {
    expect(subjectOf(held("attitude:horror_film", "User loves horror films."))).toMatchObject({
      family: "attitude",
      head: "film",
      polarity: 1,
    });
    expect(subjectOf(held("consumes:coffee", "User no longer drinks coffee.", { item: "coffee", stopped: true }))).toMatchObject({
      verb: "drink",
      polarity: 0,
    });
    expect(subjectOf(held("attitude:jazz", "User doesn't like jazz."))).toMatchObject({ polarity: -1 });
    expect([...subjectOf(held("pet:dog:rufus", "User has a dog named Rufus.")).names]).toEqual(["rufus"]);
  });

  it("matches the same thing, not things that share a word", () => {
    const about = (key: string, content: string, value?: unknown) => subjectOf(held(key, content, value));
    const quit = about("consumes:smoking", "User quit smoking.", { habit: "smoking", stopped: true });
    expect(sameThing(quit, about("consumes:pack_a_day", "User smokes pack a day.", { item: "pack a day", verb: "smoke" }))).toBe(true);
    expect(sameThing(about("habit:japanese", ""), about("learning:japanese", "User is learning Japanese."))).toBe(true);
    expect(sameThing(about("habit:japanese", ""), about("attitude:japanese_food", "User loves Japanese food."))).toBe(false);
    expect(
      sameThing(
        about("attitude:country_music", "User no longer likes country music."),
        about("attitude:jazz_music", "User loves jazz music."),
      ),
    ).toBe(false);
    expect(sameThing(about("consumes:drinking", "User quit drinking."), about("consumes:coffee", "User drinks coffee."))).toBe(false);
  });
});

describe("contradictions before a fact is written", () => {
  const memory = [
    held("attitude:coffee", "User loves coffee.", { attitude: "loves", polarity: 1, object: "coffee" }),
    held("consumes:coffee", "User drinks coffee.", { item: "coffee", verb: "drink" }),
    held("attitude:tea", "User loves tea.", { attitude: "loves", polarity: 1, object: "tea" }),
    held("likes:coffee", "User likes coffee."),
    held("profile:partner", "User's boyfriend is Sam.", { relation: "boyfriend", name: "Sam" }),
    held("profile:employer", "User works at Spotify.", "Spotify"),
    held("pet:dog:rufus", "User has a dog named Rufus.", { animal: "dog", name: "Rufus" }),
  ];

  it("an ended habit ends the taste and the trait of the same thing, not its own key (superseded anyway) nor others", () => {
    const found = contradictedBy(held("consumes:coffee", "User no longer drinks coffee.", { item: "coffee", stopped: true }), memory);
    expect(keysOf(found)).toEqual(["attitude:coffee", "likes:coffee"]);
    expect(found[0]?.reason).toBe("no longer: same thing (coffee)");
  });

  it("a dislike ends tastes only; a positive statement ends nothing", () => {
    expect(keysOf(contradictedBy(held("dislikes:coffee", "User dislikes coffee."), memory))).toEqual(["attitude:coffee", "likes:coffee"]);
    expect(contradictedBy(held("attitude:coffee_beans", "User loves coffee beans."), memory)).toEqual([]);
  });

  it("exclusive attributes: single ends the partner, retired ends the employer", () => {
    expect(keysOf(contradictedBy(held("profile:relationship_status", "User is single.", "single"), memory))).toEqual(["profile:partner"]);
    expect(keysOf(contradictedBy(held("profile:occupation", "User is retired.", "retired"), memory))).toEqual(["profile:employer"]);
    expect(contradictedBy(held("profile:occupation", "User works as a nurse.", "nurse"), memory)).toEqual([]);
  });

  it("a retraction ends its thing when it says so; a correction's does not", () => {
    expect(keysOf(contradictedBy({ ...held("pet:dog:rufus", "Rufus died."), operation: "DELETE" }, memory))).toEqual([]);
    expect(keysOf(contradictedBy({ ...held("consumes:coffee", "User no longer drinks coffee."), operation: "DELETE" }, memory))).toEqual([
      "attitude:coffee",
      "likes:coffee",
    ]);
    expect(
      contradictedBy({ ...held("family:daughter:mia", "User's daughter is named Maya. (corrected)"), operation: "DELETE" }, memory),
    ).toEqual([]);
  });
});
