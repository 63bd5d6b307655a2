import * as chrono from "chrono-node";
import { canonicalAttribute } from "../../../vocabulary/fact-attributes.js";
import type { ExtractedFact } from "../../extraction.js";
import type { Clause } from "./clauses.js";
import { looksLikeName, nameKey, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput, retraction } from "./rule.js";
import { stateChanges } from "./state-changes.js";

const PARTNERS = "partner|wife|husband|boyfriend|girlfriend|fiancé|fiance|fiancée|fiancee|spouse";
/** Relatives of whom a user may have several: each is its own fact, keyed by name. */
const RELATIVES = "son|daughter|brother|sister|stepson|stepdaughter|cousin|niece|nephew|grandson|granddaughter|best friend";
/** Relatives a user has one of: keyed by the relation. */
export const PARENTS: Record<string, string> = {
  mom: "mother",
  mum: "mother",
  mother: "mother",
  dad: "father",
  father: "father",
  grandma: "grandmother",
  grandmother: "grandmother",
  grandpa: "grandfather",
  grandad: "grandfather",
  granddad: "grandfather",
  grandfather: "grandfather",
  nan: "grandmother",
  nana: "grandmother",
  nanna: "grandmother",
  granny: "grandmother",
};
/** Breeds said instead of the species: "a labrador named Rufus" is a dog. */
export const BREEDS: Record<string, string> = {
  labrador: "dog",
  lab: "dog",
  retriever: "dog",
  "golden retriever": "dog",
  poodle: "dog",
  beagle: "dog",
  collie: "dog",
  "border collie": "dog",
  spaniel: "dog",
  terrier: "dog",
  bulldog: "dog",
  "german shepherd": "dog",
  shepherd: "dog",
  husky: "dog",
  dachshund: "dog",
  greyhound: "dog",
  whippet: "dog",
  corgi: "dog",
  pug: "dog",
  chihuahua: "dog",
  boxer: "dog",
  rottweiler: "dog",
  schnauzer: "dog",
  tabby: "cat",
  siamese: "cat",
  persian: "cat",
  "maine coon": "cat",
  ragdoll: "cat",
  bengal: "cat",
  goldfish: "fish",
  cockatiel: "bird",
  canary: "bird",
  parakeet: "bird",
  gecko: "lizard",
};
/** Young animals by their species. */
export const SPECIES: Record<string, string> = { puppy: "dog", kitten: "cat", bunny: "rabbit", pony: "horse" };
const PETS = `dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|horse|tortoise|turtle|guinea pig|budgie|ferret|snake|lizard|fish|bird|gerbil|rat|mouse|chicken|pony|${Object.keys(BREEDS).join("|")}`;
const PEOPLE = `${PARTNERS}|${RELATIVES}|${Object.keys(PARENTS).join("|")}`;
const ANY_RELATION = `${PEOPLE}|${PETS}`;

const NAME = "\\p{Lu}[\\p{L}'-]+";
const HAVE = "(?:have|have got|got|keep|own|adopted|rescued|just got)";
const COUNT = "(?:two|three|four|2|3|4)";

/**
 * "my wife Anna", "our cat, Luna,", "my daughter is called Mia", "my husband's name is Raj", "I have
 * a cat called Miso", "we adopted a dog named Biscuit", "Nacho, my dachshund", and several at once:
 * "I have two cats, Miso and Tofu", "two leopard geckos, Sid and Nancy".
 */
function namedRelations(clause: Clause): { relation: string; name: string }[] {
  const { text } = clause;
  const several = new RegExp(
    `\\b(?:I|we) ${HAVE} ${COUNT} (?:[\\p{L}-]+ )?(${ANY_RELATION})s?,? (?:called |named )?(${NAME}(?:(?:,| and|, and) ${NAME})+)`,
    "iu",
  ).exec(text);
  if (several) {
    const relation = (several[1] as string).toLowerCase();
    const names = (several[2] as string).split(/,\s*(?:and\s+)?|\s+and\s+/).filter((name) => looksLikeName(name, clause));
    if (names.length > 1) return names.map((name) => ({ relation, name }));
  }
  const patterns: [RegExp, number, number][] = [
    [new RegExp(`\\b(?:my|our) (${ANY_RELATION}),? (${NAME})`, "iu"), 1, 2],
    [new RegExp(`\\b(?:my|our) (${ANY_RELATION})(?:'s name)? is (?:called |named )?(${NAME})$`, "iu"), 1, 2],
    [
      new RegExp(`\\b(?:I|we) ${HAVE} an? (?:new |little |baby |rescue |[\\p{L}-]+ )?(${ANY_RELATION}) (?:called|named) (${NAME})`, "iu"),
      1,
      2,
    ],
    // An apposition after the name: "Walking Nacho, my dachshund, takes forever".
    [new RegExp(`(?:^|\\s)(${NAME}), (?:my|our) (${PETS}|${PEOPLE})\\b`, "u"), 2, 1],
  ];
  for (const [pattern, relationAt, nameAt] of patterns) {
    const match = pattern.exec(text);
    if (match && looksLikeName(match[nameAt] as string, clause))
      return [{ relation: (match[relationAt] as string).toLowerCase(), name: match[nameAt] as string }];
  }
  return [];
}

const isA = (alternatives: string, word: string) => new RegExp(`^(?:${alternatives})$`, "i").test(word);

/** The user's partner, children, siblings, parents and pets, by name; a break-up retracts the partner. */
export const family: FactRule = (input) => {
  const { text } = input.clause;
  const facts = [];
  const brokeUp =
    /\b(?:(\p{Lu}[\p{L}'-]+) and I (?:broke up|split up|divorced|separated)|I (?:broke up with|divorced|split up with|separated from) (\p{Lu}[\p{L}'-]+))/u.exec(
      text,
    );
  if (brokeUp)
    facts.push(...retraction(input, "profile:partner", `User and ${brokeUp[1] ?? brokeUp[2]} separated.`, brokeUp[1] ?? brokeUp[2]));
  const status = /\bI am (?:now |officially |happily )?(single|divorced|widowed|separated)\b/i.exec(text);
  if (status) {
    const state = (status[1] as string).toLowerCase();
    facts.push(fact(input, { key: "profile:relationship_status", value: state, content: `User is ${state}.` }));
  }
  const married = /\bI am (married to|engaged to|dating) (\p{Lu}[\p{L}'-]+)/u.exec(text);
  if (married && looksLikeName(married[2] as string, input.clause)) {
    // The tie is said as it is: an engagement called off ends "engaged to Priya", not a vaguer "partner".
    const [tie, name] = [married[1] as string, married[2] as string];
    facts.push(fact(input, { key: "profile:partner", value: { relation: "partner", name, tie }, content: `User is ${tie} ${name}.` }));
    return facts;
  }
  // "Our dog Rex passed away": who the clause says died or parted is not written as current.
  const ended = new Set(
    stateChanges(input.clause)
      .filter((change) => change.change === "death" || change.change === "breakup" || change.change === "rehomed")
      .flatMap((change) => change.names.map(nameKey)),
  );
  for (const { relation, name } of namedRelations(input.clause))
    if (!ended.has(nameKey(name))) facts.push(relationFact(input, relation, name));
  const corrected = correctedPet(input);
  if (corrected) {
    facts.push(relationFact(input, corrected.animal, corrected.name));
    for (const key of corrected.replaces) facts.push(...retraction(input, key, `${corrected.name} is a ${corrected.animal}.`));
  }
  return facts;
};

/**
 * "Salt is actually a rabbit": a pet the user named before, said to be another animal. A pet is
 * known by its name, so the held pet of that name under another animal is replaced.
 */
function correctedPet(input: RuleInput): { name: string; animal: string; replaces: string[] } | undefined {
  const said = new RegExp(`(?:^|\\b(?:but|and|so) |, )(${NAME}) is (?:actually |really |in fact )?an? (${PETS})\\b`, "u").exec(
    input.clause.text,
  );
  if (!said) return undefined;
  const [name, animal] = [said[1] as string, (said[2] as string).toLowerCase()];
  const replaces = [...input.known.values()]
    .map((held) => held.key)
    .filter((key) => {
      const [namespace, heldAnimal, named] = canonicalAttribute(key).split(":");
      return namespace === "pet" && named === nameKey(name) && heldAnimal !== slug(animal);
    });
  return replaces.length > 0 ? { name, animal, replaces } : undefined;
}

function relationFact(input: RuleInput, relation: string, name: string): ExtractedFact {
  if (isA(PARTNERS, relation)) {
    return fact(input, { key: "profile:partner", value: { relation, name }, content: `User's ${relation} is ${name}.` });
  }
  if (isA(PETS, relation))
    return fact(input, {
      key: `pet:${slug(relation)}:${nameKey(name)}`,
      value: { animal: relation, species: BREEDS[relation] ?? SPECIES[relation] ?? relation, name },
      content: `User has a ${relation} named ${name}.`,
    });
  const parent = PARENTS[relation];
  if (parent) return fact(input, { key: `family:${parent}`, value: { relation: parent, name }, content: `User's ${parent} is ${name}.` });
  return fact(input, {
    key: `family:${slug(relation)}:${nameKey(name)}`,
    value: { relation, name },
    content: `User's ${relation} is named ${name}.`,
  });
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** A calendar day without a year ("June 3"), read by chrono-node: "June 3rd", "the 5th of October". */
function calendarDay(raw: string): string | null {
  const parsed = chrono.parse(raw)[0];
  const month = parsed?.start.get("month");
  const day = parsed?.start.get("day");
  if (!(parsed?.start.isCertain("month") && parsed.start.isCertain("day")) || !month || !day) return null;
  return `${MONTHS[month - 1]} ${day}`;
}

/** "My birthday is May 12", "My dad's birthday is on March 3rd", "My son Leo turns 7 on June 3rd". */
export const birthdays: FactRule = (input) => {
  const { text } = input.clause;
  const own = /\bmy birthday is (?:on )?(.+)$/i.exec(text);
  if (own) {
    const day = calendarDay(own[1] as string);
    return day ? [fact(input, { key: "profile:birthday", value: day, content: `User's birthday is ${day}.` })] : [];
  }
  const theirs = new RegExp(`\\bmy (${PEOPLE})(?: (\\p{Lu}[\\p{L}'-]+))?'s birthday is (?:on )?(.+)$`, "iu").exec(text);
  const turns = new RegExp(`\\bmy (${PEOPLE}) (\\p{Lu}[\\p{L}'-]+) (?:turns|will turn|is turning) \\d{1,3} (?:on )?(.+)$`, "iu").exec(text);
  const match = theirs ?? turns;
  if (!match) return [];
  const day = calendarDay(match[3] as string);
  if (!day) return [];
  const relation = (match[1] as string).toLowerCase();
  const name = match[2];
  const who = isA(PARTNERS, relation) ? "family:partner" : PARENTS[relation] ? `family:${PARENTS[relation]}` : `family:${slug(relation)}`;
  const key = name && !isA(PARTNERS, relation) && !PARENTS[relation] ? `${who}:${nameKey(name)}:birthday` : `${who}:birthday`;
  const person = `${PARENTS[relation] ?? relation}${name ? ` ${name}` : ""}`;
  return [fact(input, { key, value: day, content: `User's ${person}'s birthday is ${day}.` })];
};
