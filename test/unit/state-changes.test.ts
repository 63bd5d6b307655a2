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

/*
 * The forms below were found on the third fact set (fresh-unseen.txt), which made it a tuning set:
 * each is tested here in other words than the set's, so that the test pins the form, not the sentence.
 */
describe("the forms of a change beyond the usual verbs", () => {
  it("names the class of a loss, a theft, a parting, a sale gone through, a state no longer held", () => {
    expect(changesOf("Gutted, my bike got pinched from outside the gym.")).toEqual(["sale: bike"]);
    expect(changesOf("Spilled coffee on my laptop and it's dead, time for a new one.")).toEqual(["sale: laptop"]);
    expect(changesOf("The sale of the cottage completed on Friday.")).toEqual(["sale: cottage"]);
    expect(changesOf("We called off the wedding.")).toEqual(["breakup"]);
    expect(changesOf("Priya and I went our separate ways.")).toEqual(["breakup (Priya)"]);
    expect(changesOf("Luna didn't make it through the night.")).toEqual(["death (Luna)"]);
    expect(changesOf("Nana passed away in her sleep.")).toEqual(["death"]);
    expect(changesOf("I'm not married any more.")).toEqual(["state-ended: married"]);
    expect(changesOf("I don't consider myself a Christian these days.")).toEqual(["state-ended: Christian"]);
    expect(changesOf("Defended my thesis today, so that's the doctorate done.")).toEqual(["studies-ended: their doctorate"]);
    expect(changesOf("I've had to give up cycling since the accident.")).toEqual(["cessation: cycling"]);
  });

  it("keeps the idioms that are no change: a flat battery, a broken thing mended, a late train", () => {
    for (const text of [
      "My laptop died halfway through the meeting.",
      "The printer is broken again, typical.",
      "I didn't make it to the gym today.",
      "Grandpa didn't make it to the party.",
      "Tom and I are done with the kitchen at last.",
      "I finished my last day of holiday.",
      "The bus didn't make it on time.",
      "The trains aren't running any more tonight.",
      "I have to give up sugar, says my dentist.",
    ])
      expect(changesOf(text), text).toEqual([]);
  });

  it("resolves a change against what the user holds, by kind and by make", () => {
    expect(said("I like a pint of lager after work.", "I've cut out alcohol for Lent.").current).not.toContain(
      "User likes a pint of lager.",
    );
    expect(said("I go bouldering most weekends.", "I've given up climbing, my fingers can't take it.").current).toEqual([]);
    // The habit under another key is closed by the write path's reading (memory/contradictions; the database test).
    expect(said("I smoke ten a day.", "Binned the cigarettes for good last month.").facts).toEqual([
      "ADD consumes:cigarette: User quit cigarettes.",
    ]);
    expect(said("I have a Leica camera.", "My Leica got stolen on holiday.").current).toEqual([]);
    expect(said("I own a small cottage.", "The sale of the cottage completed on Friday.").current).toEqual([]);
    expect(said("I am single.", "I'm not single any more, I met someone.").current).toEqual([]);
    expect(said("I'm Buddhist.", "I don't consider myself religious these days.").current).toEqual([]);
    expect(said("I'm vegan.", "I eat cheese again, I couldn't do it.").current).toEqual(["User eats cheese."]);
  });

  it("reads what the fourth fact set showed (in other words): teetotal, 'done with', 'over between us', a lower-case correction", () => {
    expect(said("I'm teetotal now, six months without a drink.").facts).toEqual(["ADD consumes:alcohol: User no longer drinks alcohol."]);
    expect(changesOf("Honestly, I'm done with dating apps.")).toEqual(["cessation: dating apps"]);
    expect(changesOf("My elbow is shot, so tennis is done for me.")).toEqual(["cessation: tennis"]);
    expect(changesOf("Jess moved out last week and it's over between us.")).toEqual(["breakup (Jess)"]);
    expect(changesOf("I don't do my evening swims any more.")).toEqual(["cessation: evening swims"]);
    expect(said("I'm allergic to ibuprofen.", "Sorry, it's aspirin I react to, not ibuprofen.").current).toEqual([
      "User is allergic to aspirin.",
    ]);
    // Not a thing given up: what follows "quit" is why.
    expect(said("I worked in a bank, which I quit because it bored me.").facts).toEqual([]);
    expect(changesOf("I'm done with the kitchen at last.")).toEqual([]);
    expect(changesOf("My sister called off the engagement.")).toEqual([]);
  });

  it("work that ends: retiring and stepping down close the employer, being out of work the job", () => {
    expect(said("I'm a paramedic with the ambulance service.", "I stepped down from the service, I'm retired now.").current).toEqual([
      "User is retired.",
    ]);
    expect(said("I'm a chef at Nobu.", "They let me go from Nobu, so I'm job hunting.").current).toEqual([]);
    expect(
      said("I work as a cashier.", "Worked my last shift at the shop, and next week I start as a trainee electrician.").current,
    ).toEqual(["User works as a trainee electrician."]);
    expect(said("I'm a pharmacist, not a chemist.").current).toEqual(["User works as a pharmacist."]);
  });

  it("a new home named without a verb of moving", () => {
    expect(said("I live in Leeds.", "Loving our new house in York, the garden is huge.").current).toEqual(["User lives in York."]);
    expect(said("I live in Leeds.", "Left Leeds behind, I'm in Sheffield now and the rent is half.").current).toEqual([
      "User lives in Sheffield.",
    ]);
    expect(said("I'm in Paris now for the conference.").current).toEqual([]);
    expect(said("We went to Paris and I left my bag on the train.").current).toEqual([]);
  });

  it("people and animals introduced several at a time or in passing", () => {
    expect(said("We have three hens, Ada, Bea and Cleo.").current.sort()).toEqual([]);
    expect(said("I have two dogs, Pip and Max.").current.sort()).toEqual(["User has a dog named Max.", "User has a dog named Pip."]);
    expect(said("Feeding Kiwi, my parrot, is a whole production.").current).toEqual(["User has a parrot named Kiwi."]);
    expect(said("My grandad Eric taught me chess.").current).toEqual(["User's grandfather is Eric."]);
  });
});

describe("the forms the fifth fact set showed, each said in other words and with a control", () => {
  it("a job that ends ends the occupation too, unless the same work goes on elsewhere", () => {
    expect(said("I'm a barber at Trim & Co.", "Got laid off from Trim & Co on Friday.").current).toEqual([]);
    expect(said("I work as a welder.", "They let me go last week.").current).toEqual([]);
    expect(said("I'm a nurse at St Luke's.", "I quit St Luke's and start at another hospital in May.").current).toEqual([
      "User works as a nurse.",
    ]);
  });

  it("a subject chat drops is the user's: a clause that opens in the past tense", () => {
    expect(said("I'm a junior analyst at Aviva.", "Got promoted to senior analyst this week!").current).toContain(
      "User works as a senior analyst.",
    );
    expect(said("I drive a Fiat Panda.", "Sold the Panda on Sunday.").current).toEqual([]);
    expect(said("Tell me about Lisbon.").current).toEqual([]);
  });

  it("a new job said beside leaving the old, or without a verb", () => {
    expect(said("I teach history.", "I left teaching and now work as a copywriter.").current).toEqual(["User works as a copywriter."]);
    expect(said("I teach history.", "I love my pupils and work as hard as I can.").current).toContain("User teaches history.");
    expect(said("I'm a clerk at Lloyds.", "Now that I've started at the dental practice I finish at four.").current).toContain(
      "User works at the dental practice.",
    );
    expect(said("I'm a clerk at Lloyds.", "I started at the climbing gym last week.").current).toContain("User works at Lloyds.");
    expect(said("I'm a clerk at Lloyds.", "I've started at the library on Saturdays too.").current).toContain("User works at Lloyds.");
  });

  it("someone else's loss, or what others assume, ends nothing of the user's", () => {
    expect(said("My dog Bran is 11.", "My cousin's dog died on Tuesday.").current).toEqual(["User has a dog named Bran."]);
    expect(said("My dog Bran is 11.", "Her dog passed away last night.").current).toEqual(["User has a dog named Bran."]);
    expect(said("My dog Bran is 11.", "Our dog passed away last night.").current).toEqual([]);
    expect(said("My husband Olu and I are fine.", "Everyone assumes we are splitting up since Olu moved for work.").current).toEqual([
      "User's husband is Olu.",
    ]);
  });

  it("a death said gently, a pet rehomed, a thing with a new owner", () => {
    expect(said("My rabbit Clover is 8.", "Clover crossed the rainbow bridge on Monday.").current).toEqual([]);
    expect(said("My grandma Edith is 93.", "Grandma is no longer with us.").current).toEqual([]);
    expect(said("My grandma Edith is 93.", "Grandma is no longer with us at Christmas, she goes to my aunt's.").current).toEqual([
      "User's grandmother is Edith.",
    ]);
    expect(said("I have a dog called Pretzel.", "Pretzel went to a new home with a family on a farm.").current).toEqual([]);
    expect(said("I own a Brompton.", "My Brompton has a new owner now.").current).toEqual([]);
    expect(said("Our cat Mango died before we met you.").current).toEqual([]);
  });

  it("partings: said by name of the partner, or as not being together any more", () => {
    expect(said("I'm engaged to Marek.", "Marek called off the engagement last night.").current).toEqual([]);
    expect(said("My sister Ola is lovely.", "Ola called off the engagement.").current).toEqual(["User's sister is named Ola."]);
    expect(said("My girlfriend Kim is a chef.", "Kim and I are not together any more.").current).toEqual([]);
    expect(said("My girlfriend Kim is a chef.", "My parents are not together any more.").current).toEqual(["User's girlfriend is Kim."]);
  });

  it("a thing that came to its end, a taste that lost its pull", () => {
    expect(said("I'm taking a watercolour class on Mondays.", "The watercolour course has wrapped up.").current).toEqual([]);
    expect(said("I'm taking a watercolour class on Mondays.", "The watercolour class ended early today.").current).toEqual([
      "User is learning watercolour class.",
    ]);
    expect(said("I love ramen.", "Ramen has lost its appeal for me.").current).toEqual(["User no longer likes ramen."]);
    expect(said("I love ramen.", "My brother says ramen has lost its appeal for him.").current).toEqual(["User loves ramen."]);
  });

  it("a pet known by its name, said to be another animal; an allergy list that ends where a verb starts", () => {
    expect(said("I have two cats, Fig and Plum.", "Oops, Plum is actually a guinea pig.").current.sort()).toEqual([
      "User has a cat named Fig.",
      "User has a guinea pig named Plum.",
    ]);
    expect(said("I'm allergic to kiwi, learned that at a wedding.").current).toEqual(["User is allergic to kiwi."]);
  });

  it("ends said by their signs: since my last, hung up my …, a pensioner, qualified, written off", () => {
    expect(said("I smoke cigars.", "It's been three weeks since my last cigar.").current).toEqual(["User quit cigars."]);
    expect(said("I drink a lot of tea.", "It's been an hour since my last tea.").current).toEqual(["User drinks tea."]);
    expect(said("I'm a firefighter.", "I hung up my helmet for good in June.").current).toEqual([]);
    expect(said("I'm a firefighter.", "I hung up my helmet and made a cup of tea.").current).toEqual(["User works as a firefighter."]);
    expect(said("I'm a postman for Royal Mail.", "I'm a pensioner these days.").current).toEqual(["User is retired."]);
    expect(said("I'm studying physiotherapy.", "I qualified as a physiotherapist last month.").current).toContain(
      "User works as a physiotherapist.",
    );
    expect(said("I drive a Kia Ceed.", "My son wrote off the Kia last night.").current).toEqual(["User drives a Kia Ceed."]);
    expect(said("I drive a Kia Ceed.", "I wrote off the Kia on the A1.").current).toEqual([]);
    expect(said("I haven't touched my guitar since May.").current).toEqual([]);
  });

  it("medicines taken and stopped; an allergy outgrown; a number put right; a membership cancelled; a move said another way", () => {
    expect(said("I'm on citalopram for my anxiety.").current).toEqual(["User takes citalopram for anxiety."]);
    expect(said("I'm on holiday in Crete.", "I'm on the night bus.").current).toEqual([]);
    expect(said("I take atorvastatin every night.", "My GP took me off the atorvastatin.").current).toEqual([
      "User no longer takes atorvastatin.",
    ]);
    expect(said("I take atorvastatin every night.", "I'm not on atorvastatin these days.").current).toEqual([
      "User no longer takes atorvastatin.",
    ]);
    expect(said("I take atorvastatin every night.", "I'm not on atorvastatin today, I forgot it.").current).toEqual([
      "User takes atorvastatin.",
    ]);
    expect(said("I'm allergic to peanuts.", "My son grew out of his peanut allergy.").current).toEqual(["User is allergic to peanuts."]);
    expect(said("I'm allergic to peanuts.", "I've outgrown my peanut allergy!").current).toEqual([]);
    expect(said("I'm 52.", "Sorry, I meant 25, not 52.").current).toEqual(["User is 25 years old."]);
    expect(said("I'm 52.", "I walked 25 miles, not 52.").current).toEqual(["User is 52 years old."]);
    expect(said("I do yoga twice a week.", "I cancelled my yoga classes last month.").current).toEqual([]);
    expect(said("I live in Hull.", "We upped sticks to Bath in the spring.").current).toEqual(["User lives in Bath."]);
  });

  it("tastes outgrown, come round to, or boring now; studies completed; homes said as living or as where home is", () => {
    expect(said("I love grime.", "I've grown out of grime.").current).toEqual(["User no longer likes grime."]);
    expect(said("I hate mushrooms.", "I've honestly come round to mushrooms.").current).toEqual(["User has come to like mushrooms."]);
    expect(said("I love reality TV.", "Reality TV bores me these days.").current).toEqual(["User no longer likes reality TV."]);
    expect(said("I love reality TV.", "My husband says reality TV bores him now.").current).toEqual(["User loves reality TV."]);
    expect(said("I'm doing a certificate in bookkeeping.", "I completed my certificate in May.").current).toEqual([
      "User finished certificate.",
    ]);
    expect(said("I live in Derby.", "I'm now living in Nottingham.").current).toEqual(["User lives in Nottingham."]);
    expect(said("I live in Derby.", "Home these days is a narrowboat in Oxford.").current).toEqual(["User lives in Oxford."]);
  });

  it("retired said by what followed it; a thing given to someone or lost for good; whose friend died; a year out is no class", () => {
    expect(said("I'm a plumber.", "Since retiring I've been gardening a lot.").current).toEqual(["User is retired."]);
    expect(said("I have an iPad.", "I gave my iPad to my grandson.").current).toEqual([]);
    expect(said("I have an iPad.", "My wife gave her iPad to our grandson.").current).toEqual(["User has an iPad."]);
    expect(said("I have an iPad.", "Lost my iPad at the airport and never got it back.").current).toEqual([]);
    expect(said("I have an iPad.", "I lost my iPad down the sofa for a day.").current).toEqual(["User has an iPad."]);
    expect(said("My dad Ken lives in Leeds.", "My dad's neighbour passed away.").current).toEqual(["User's father is Ken."]);
    expect(said("I'm taking a year out to travel.").current).toEqual([]);
  });
});
