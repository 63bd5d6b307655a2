import { describe, expect, it } from "vitest";
import { readClauses } from "../../src/providers/offline/facts/clauses.js";
import { factText } from "../../src/providers/offline/facts/fact-text.js";
import { modalityOf } from "../../src/providers/offline/facts/modality.js";
import { verbPhrases } from "../../src/providers/offline/facts/verb-phrases.js";
import { extractByRules } from "../../src/providers/offline/rule-extractor.js";
import type { KnownFact } from "../../src/providers/types.js";

/**
 * The offline reader, form by grammatical form, in sentences written for these tests (no sentence
 * of a scored set: test/unit/test-sentences.test.ts checks). Each form has controls beside it.
 */
const read = (content: string, knownFacts: KnownFact[] = []) =>
  extractByRules({ turns: [{ role: "user", content, seq: 1 }], knownFacts }).facts.map(
    (fact) => `${fact.operation} ${fact.key}: ${fact.content}`,
  );
const held = (key: string, value: unknown, content: string): KnownFact => ({ key, value, content });

describe("clauses and what they assert", () => {
  it.each([
    ["a question", "Do you think I should live in Hobart?"],
    ["a condition", "If I worked at the observatory I would never sleep."],
    ["a modal of possibility", "I might take up the harp."],
    ["advice", "I should drink less cola."],
    ["the future", "I will start at the sawmill in May."],
    ["an intention", "I'm going to buy a canoe."],
    ["a wish", "I wish I lived near the fjords."],
    ["a plan", "I'm planning to work as a cartographer."],
    ["an obligation", "I have to give up caffeine before the exam."],
    ["a belief", "I think I'm allergic to kiwi."],
    ["someone else's words", "My cousin says she lives in Tartu."],
    ["sarcasm", "Oh great, I love queuing in the rain."],
    ["a quotation", 'My nephew keeps saying "I love broccoli".'],
    ["someone else's state", "My aunt plays the accordion."],
    ["an imperative", "Go ride the tram to the end of the line."],
  ])("writes nothing from %s", (_form, sentence) => {
    expect(read(sentence)).toEqual([]);
  });

  it("names each modality from its closed class", () => {
    expect(modalityOf("I would hate to live there")).toBe("modal");
    expect(modalityOf("unless I move to the coast")).toBe("conditional");
    expect(modalityOf("I need to quit the choir")).toBe("obligation");
    expect(modalityOf("I hope to see the aurora")).toBe("wish");
    expect(modalityOf("the vet told me the parrot is old")).toBe("reported");
    expect(modalityOf("yeah right, I adore traffic jams")).toBe("sarcastic");
    expect(modalityOf("I repair clocks for a living")).toBe("asserted");
  });

  it("splits a message where a new subject begins, and gives a dropped past-tense subject back to the user", () => {
    expect(readClauses("I'm Norwegian but I live in Cork").map((clause) => clause.text)).toEqual(["I am Norwegian", "I live in Cork"]);
    expect(readClauses("Sold the caravan last week").map((clause) => clause.text)).toEqual(["I sold the caravan last week"]);
  });
});

describe("tense, aspect and negation of a verb", () => {
  it("reads them from the auxiliaries", () => {
    const [moving] = verbPhrases("I am moving to Skopje");
    const [moved] = verbPhrases("I have moved to Skopje");
    const [will] = verbPhrases("I will move to Skopje");
    const [lapsed] = verbPhrases("I do not skate any more");
    expect(moving).toMatchObject({ lemma: "move", aspect: "progressive", tense: "present" });
    expect(moved).toMatchObject({ lemma: "move", aspect: "perfect" });
    expect(will).toMatchObject({ tense: "future" });
    expect(lapsed).toMatchObject({ lemma: "skate", negative: true, noLonger: true });
  });

  it("never writes a change in progress or to come as done, nor a past state as a present one", () => {
    expect(read("I'm moving to Skopje in the autumn.")).toEqual([]);
    expect(read("I lived in Skopje for a decade.")).toEqual([]);
    expect(read("I played the oboe at school.")).toEqual([]);
    expect(read("We have moved to Skopje.")).toEqual(["ADD profile:location: User lives in Skopje."]);
  });

  it("scopes a negation to its verb: a negated liking is a dislike, a negated dislike says nothing", () => {
    expect(read("I don't like marzipan.")).toEqual(["ADD attitude:marzipan: User doesn't like marzipan."]);
    expect(read("I don't hate marzipan.")).toEqual([]);
    expect(read("I don't live in Skopje.")).toEqual([]);
  });
});

describe("facts about the user, by construction", () => {
  it.each([
    ["the possessive 'my name'", "My name is Halvard Berge.", ["ADD profile:name: User's name is Halvard Berge."]],
    ["an introduction", "Hello, I'm Odile.", ["ADD profile:name: User's name is Odile."]],
    ["a number of years", "I'm 57 years old.", ["ADD profile:age: User is 57 years old."]],
    ["live in", "I live in Tartu with two flatmates.", ["ADD profile:location: User lives in Tartu."]],
    ["a completed move", "We moved to Tartu in March.", ["ADD profile:location: User lives in Tartu."]],
    ["be based in", "I'm based in Tartu.", ["ADD profile:location: User lives in Tartu."]],
    ["be from", "I'm originally from Lleida.", ["ADD profile:origin: User is from Lleida."]],
    ["grow up in", "I grew up in Lleida.", ["ADD profile:origin: User is from Lleida."]],
    [
      "work as … at",
      "I work as a glassblower at Vetro Studio.",
      ["ADD profile:occupation: User works as a glassblower.", "ADD profile:employer: User works at Vetro Studio."],
    ],
    ["a role after the copula", "I'm a plumber.", ["ADD profile:occupation: User works as a plumber."]],
    [
      "a job got",
      "I got a job as a welder at Norrhavn.",
      ["ADD profile:occupation: User works as a welder.", "ADD profile:employer: User works at Norrhavn."],
    ],
    ["study … at", "I study geology at Tallinn University.", ["ADD profile:studies: User studies geology at Tallinn University."]],
    ["graduate from", "I graduated from Tallinn University.", ["ADD profile:alma_mater: User graduated from Tallinn University."]],
    ["a diet", "I'm vegan.", ["ADD profile:diet: User is vegan."]],
    ["a relationship state", "I'm divorced.", ["ADD profile:relationship_status: User is divorced."]],
    [
      "allergic to, coordinated",
      "I'm allergic to hazelnuts and latex.",
      ["ADD allergy:hazelnut: User is allergic to hazelnuts.", "ADD allergy:latex: User is allergic to latex."],
    ],
    ["a birthday", "My birthday is October 9th.", ["ADD profile:birthday: User's birthday is October 9."]],
  ])("%s", (_form, sentence, facts) => {
    expect(read(sentence)).toEqual(facts);
  });

  it("takes no adjective, nationality, kin or fan for a name or a job", () => {
    expect(read("I'm Hungarian.")).toEqual([]);
    expect(read("I'm Sleepy today.")).toEqual([]);
    expect(read("I'm a grandmother.")).toEqual([]);
    expect(read("I'm a big fan of sea shanties.")).toEqual([]);
    expect(read("I live in hope.")).toEqual([]);
  });
});

describe("people and animals, by apposition and possession", () => {
  it.each([
    ["my <kin> <Name>", "I drove my daughter Saskia to her recital.", ["ADD family:daughter:saskia: User's daughter is named Saskia."]],
    ["<Name>, my <kin>", "Idris, my brother, fixes bikes.", ["ADD family:brother:idris: User's brother is named Idris."]],
    ["my <kin> is <Name>", "My husband is Teodor.", ["ADD profile:partner: User's husband is Teodor."]],
    ["my <kin>'s name is <Name>", "My nephew's name is Benedek.", ["ADD family:nephew:benedek: User's nephew is named Benedek."]],
    ["a parent is one of a kind", "My mum Agnieszka paints.", ["ADD family:mother: User's mother is Agnieszka."]],
    ["married to <Name>", "I'm married to Teodor.", ["ADD profile:partner: User is married to Teodor."]],
    ["an animal called <Name>", "We have a rabbit called Turnip.", ["ADD pet:rabbit:turnip: User's rabbit is named Turnip."]],
    [
      "a counted plural and its names",
      "I have two cats, Moth and Juniper.",
      ["ADD pet:cat:moth: User's cat is named Moth.", "ADD pet:cat:juniper: User's cat is named Juniper."],
    ],
  ])("%s", (_form, sentence, facts) => {
    expect(read(sentence)).toEqual(facts);
  });

  it("someone else's relatives and animals are not the user's", () => {
    expect(read("My neighbour's dog Rascal barks all night.")).toEqual([]);
    expect(read("Her son Ambrose is at college.")).toEqual([]);
  });
});

describe("tastes, habits and pastimes", () => {
  it.each([
    ["a verb of liking and a gerund", "I love sea kayaking.", ["ADD attitude:sea_kayaking: User loves sea kayaking."]],
    ["can't stand", "I can't stand karaoke.", ["ADD attitude:karaoke: User can't stand karaoke."]],
    ["a favourite", "My favourite painter is Hammershøi.", ["ADD favorite:painter: User's favorite painter is Hammershøi."]],
    ["a verb of consuming", "I drink rooibos every evening.", ["ADD consumes:rooibo: User drinks rooibos."]],
    ["play a noun", "I play the bassoon.", ["ADD hobby:bassoon: User plays the bassoon."]],
    ["go with a gerund", "I go orienteering on Sundays.", ["ADD hobby:orienteering: User goes orienteering."]],
    ["take up, done", "I took up pottery in the spring.", ["ADD hobby:pottery: User took up pottery."]],
    [
      "speak, coordinated",
      "I speak Danish and Welsh.",
      ["ADD language:danish: User speaks Danish.", "ADD language:welsh: User speaks Welsh."],
    ],
    ["learn, in progress and said so", "I'm learning Icelandic.", ["ADD learning:icelandic: User is learning Icelandic."]],
    ["drive a make", "I drive a Skoda.", ["ADD owns:skoda: User drives a Skoda."]],
    ["a standing instruction", "Always answer in Danish.", ["ADD rule:answer_in_danish: User's rule: always answer in Danish."]],
  ])("%s", (_form, sentence, facts) => {
    expect(read(sentence)).toEqual(facts);
  });

  it("a taste is evidence for its trait and against the opposite one; a habit for a behaviour trait", () => {
    const { traits } = extractByRules({
      turns: [
        { role: "user", content: "I adore lighthouses.", seq: 1 },
        { role: "user", content: "I usually cycle to the harbour.", seq: 2 },
      ],
    });
    expect(traits.map((trait) => `${trait.key} ${trait.direction} ${trait.content}`)).toEqual([
      "likes:lighthouse supporting User likes lighthouses.",
      "dislikes:lighthouse contradicting User dislikes lighthouses.",
      "behavior:cycle_to_the_harbour supporting User usually cycles to the harbour.",
    ]);
  });

  it("no thing, no taste: a proposition, an amount, a pronoun", () => {
    expect(read("I like the thought of a long winter.")).toEqual([]);
    expect(read("I'm learning a lot these days.")).toEqual([]);
    expect(read("I love that you noticed.")).toEqual([]);
    expect(read("I play with my food.")).toEqual([]);
    expect(read("I drink three cups a day.")).toEqual([]);
    expect(read("I drink two mugs of cocoa every night.")).toEqual(["ADD consumes:cocoa: User drinks cocoa."]);
  });
});

describe("changes of state, against what the memory holds", () => {
  const home = held("profile:location", "Tartu", "User lives in Tartu.");
  const job = [
    held("profile:occupation", "welder", "User works as a welder."),
    held("profile:employer", "Norrhavn", "User works at Norrhavn."),
  ];

  it("a new value of a held attribute is an UPDATE; the same value a NOOP", () => {
    expect(read("We moved to Narva.", [home])).toEqual(["UPDATE profile:location: User lives in Narva."]);
    expect(read("I live in Tartu.", [home])).toEqual(["NOOP profile:location: User lives in Tartu."]);
  });

  it("'no longer' and 'not … any more' end what is held about the verb's object", () => {
    expect(read("I no longer live in Tartu.", [home])).toEqual(["DELETE profile:location: User no longer lives in Tartu."]);
    expect(read("I no longer live in Narva.", [home])).toEqual([]);
    expect(read("I'm not vegan any more.", [held("profile:diet", "vegan", "User is vegan.")])).toEqual([
      "DELETE profile:diet: User is no longer vegan.",
    ]);
    expect(read("I don't drink cola any more.")).toEqual(["ADD consumes:cola: User no longer drinks cola."]);
    expect(read("I no longer like olives.", [held("attitude:olive", { polarity: 1 }, "User likes olives.")])).toEqual([
      "UPDATE attitude:olive: User no longer likes olives.",
    ]);
    expect(read("I no longer knit.", [held("hobby:knitting", "knitting", "User goes knitting.")])).toEqual([
      "DELETE hobby:knitting: User no longer knits.",
    ]);
  });

  it("a verb of stopping: a stopped consumption is a fact; anything else held about the thing ends", () => {
    expect(read("I've stopped vaping.")).toEqual(["ADD consumes:vaping: User quit vaping."]);
    expect(read("I gave up the trombone.", [held("hobby:trombone", "trombone", "User plays the trombone.")])).toEqual([
      "DELETE hobby:trombone: User stopped trombone.",
    ]);
    expect(read("I'm quitting the choir.", [held("hobby:choir", "choir", "User sings in the choir.")])).toEqual([]);
  });

  it("'used to' is a past habit; 'used to be' is no pastime", () => {
    expect(read("I used to fence at university.")).toEqual(["ADD hobby:fencing: User used to fence at university."]);
    expect(read("I used to be a lifeguard.")).toEqual([]);
  });

  it("leaving and retiring end the job held; a place left ends the home", () => {
    expect(read("I quit my job.", job)).toEqual([
      "DELETE profile:employer: User left their job.",
      "DELETE profile:occupation: User left their job.",
    ]);
    expect(read("I left Norrhavn.", job)).toEqual([
      "DELETE profile:employer: User left Norrhavn.",
      "DELETE profile:occupation: User left Norrhavn.",
    ]);
    expect(read("I left Brakstad.", job)).toEqual([]);
    expect(read("I retired.", job)).toEqual(["DELETE profile:employer: User retired.", "UPDATE profile:occupation: User is retired."]);
    expect(read("I left Tartu.", [home])).toEqual(["DELETE profile:location: User no longer lives in Tartu."]);
  });

  it("selling, separating and dying end what names the same thing or one", () => {
    const skoda = held("owns:skoda", { thing: "Skoda" }, "User drives a Skoda.");
    expect(read("I sold the Skoda.", [skoda])).toEqual(["DELETE owns:skoda: User no longer has Skoda."]);
    expect(read("We got rid of the Skoda.", [skoda])).toEqual(["DELETE owns:skoda: User no longer has Skoda."]);
    expect(read("I sold my piano.", [skoda])).toEqual([]);
    const partner = held("profile:partner", { relation: "partner", name: "Teodor" }, "User's husband is Teodor.");
    expect(read("I broke up with Teodor.", [partner])).toEqual(["DELETE profile:partner: User separated from Teodor."]);
    const cat = held("pet:cat:moth", { animal: "cat", name: "Moth" }, "User's cat is named Moth.");
    expect(read("Moth died last week.", [cat])).toEqual(["DELETE pet:cat:moth: Moth died."]);
    expect(read("My cat Moth died last week.")).toEqual([]);
    expect(read("My neighbour's cat died.", [cat])).toEqual([]);
  });

  it("a repair restates the held fact with the right value, as a CORRECT", () => {
    expect(read("Sorry, I meant Narva, not Tartu.", [home])).toEqual(["CORRECT profile:location: User lives in Narva."]);
    expect(read("Sorry, I meant Narva, not Pärnu.", [home])).toEqual([]);
  });
});

describe("a fact's sentence, built from its parts and checked", () => {
  it("is one predicate over a phrase", () => {
    expect(factText({ predicate: "lives in", object: "Tartu" })).toEqual({ content: "User lives in Tartu.", problems: [] });
    expect(factText({ subject: "User's rabbit", predicate: "is named", object: "Turnip" }).problems).toEqual([]);
  });

  it("refuses a pasted clause, the user's own words, a long object, a second predicate", () => {
    expect(factText({ predicate: "loves", object: "go to the lake every day" }).problems).toContain('a verb in the object ("go")');
    expect(factText({ predicate: "loves", object: "my uncle's stories" }).problems).toContain("the user's own words in the object");
    expect(factText({ predicate: "likes", object: "a b c d e f g" }).problems).toContain("an object of 7 words");
    expect(factText({ predicate: "works at Orla and lives in", object: "Tartu" }).problems).toContain("2 predicates, not one");
  });

  it("refuses a change in progress or to come written as done, a negated statement written positive, a past state as present", () => {
    const completes = { predicate: "moved to", object: "Narva", completes: true };
    expect(factText({ ...completes, from: verbPhrases("I am moving to Narva")[0] }).problems).toEqual([
      "a statement in progress or to come written as a completed change",
    ]);
    expect(factText({ ...completes, from: verbPhrases("I will move to Narva")[0] }).problems).toHaveLength(1);
    expect(factText({ ...completes, from: verbPhrases("I moved to Narva")[0] }).problems).toEqual([]);
    expect(factText({ predicate: "lives in", object: "Narva", from: verbPhrases("I do not live in Narva")[0] }).problems).toEqual([
      "a negated statement written as a positive one",
    ]);
    expect(factText({ predicate: "lives in", object: "Narva", from: verbPhrases("I lived in Narva")[0] }).problems).toEqual([
      "a past statement written as a present state",
    ]);
  });
});
