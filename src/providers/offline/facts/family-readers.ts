import * as chrono from "chrono-node";
import type { ExtractedFact } from "../../extraction.js";
import type { Clause } from "./clauses.js";
import { looksLikeName, nameKey, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";
import { alternation, isPartnerWord, isSpecies, KIN_WORDS, PARENT_WORDS, SPECIES, SPECIES_WORDS } from "./word-classes.js";

const NAME = "\\p{Lu}[\\p{L}'-]+";
const KIN = alternation(KIN_WORDS);
const ANIMAL = alternation(SPECIES_WORDS);
const RELATION = `${KIN}|${ANIMAL}`;
/** A count before a plural: "two cats", "3 dogs". */
const COUNT = "(?:two|three|four|five|2|3|4|5)";

/**
 * Who is whose, by the structures English names people with: apposition ("my daughter Lena",
 * "Rolo, my dog", "my dog, Rolo,"), a copula ("my husband is Ravi", "my sister is called Ines"),
 * the possessive "name" ("my brother's name is Tomasz"), a participle ("a cat called Miso"), and a
 * coordination of names after a counted plural ("two dogs, Rolo and Kiwi"); the relation word is
 * one of the closed classes of kin and animals (word-classes.ts).
 */
function namedRelations(clause: Clause): { relation: string; name: string }[] {
  const { text } = clause;
  const several = new RegExp(
    `\\b(?:I|we) (?:have|have got|got|adopted|keep) ${COUNT} (?:[\\p{L}-]+ )?(${ANIMAL}|${KIN})s?,? (?:called |named )?(${NAME}(?:(?:,| and|, and) ${NAME})+)`,
    "iu",
  ).exec(text);
  if (several) {
    const relation = (several[1] as string).toLowerCase();
    const names = (several[2] as string).split(/,\s*(?:and\s+)?|\s+and\s+/).filter((name) => looksLikeName(name, clause));
    if (names.length > 1) return names.map((name) => ({ relation, name }));
  }
  const structures: [RegExp, number, number][] = [
    [new RegExp(`\\b(?:my|our) (${RELATION}),? (${NAME})`, "iu"), 1, 2],
    [new RegExp(`\\b(?:my|our) (${RELATION})(?:'s name)? is (?:called |named )?(${NAME})$`, "iu"), 1, 2],
    [new RegExp(`\\b(?:I|we) (?:have|have got|got|adopted) an? (?:[\\p{L}-]+ )?(${ANIMAL}) (?:called|named) (${NAME})`, "iu"), 1, 2],
    [new RegExp(`(?:^|\\s)(${NAME}), (?:my|our) (${RELATION})\\b`, "u"), 2, 1],
  ];
  for (const [structure, relationAt, nameAt] of structures) {
    const match = structure.exec(text);
    if (match && looksLikeName(match[nameAt] as string, clause))
      return [{ relation: (match[relationAt] as string).toLowerCase(), name: match[nameAt] as string }];
  }
  return [];
}

/** The user's partner, relatives and pets by name ("married to", "engaged to", "dating" a name is the partner). */
export const family: FactRule = (input) => {
  const { text } = input.clause;
  const tie = /\bI am (married to|engaged to|dating) (\p{Lu}[\p{L}'-]+)/u.exec(text);
  if (tie && looksLikeName(tie[2] as string, input.clause)) {
    const [how, name] = [tie[1] as string, tie[2] as string];
    return fact(input, { key: "profile:partner", value: { relation: "partner", name, tie: how }, predicate: `is ${how}`, object: name });
  }
  return namedRelations(input.clause).flatMap(({ relation, name }) => relationFact(input, relation, name));
};

function relationFact(input: RuleInput, relation: string, name: string): ExtractedFact[] {
  if (isPartnerWord(relation))
    return fact(input, { key: "profile:partner", value: { relation, name }, subject: `User's ${relation}`, predicate: "is", object: name });
  if (isSpecies(relation)) {
    const species = SPECIES[relation] ?? relation;
    return fact(input, {
      key: `pet:${slug(relation)}:${nameKey(name)}`,
      value: { animal: relation, species, name },
      subject: `User's ${relation}`,
      predicate: "is named",
      object: name,
    });
  }
  const parent = PARENT_WORDS[relation];
  if (parent)
    return fact(input, {
      key: `family:${parent}`,
      value: { relation: parent, name },
      subject: `User's ${parent}`,
      predicate: "is",
      object: name,
    });
  return fact(input, {
    key: `family:${slug(relation)}:${nameKey(name)}`,
    value: { relation, name },
    subject: `User's ${relation}`,
    predicate: "is named",
    object: name,
  });
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** A calendar day without a year ("June 3"), read by chrono-node. */
function calendarDay(raw: string): string | null {
  const parsed = chrono.parse(raw)[0];
  const month = parsed?.start.get("month");
  const day = parsed?.start.get("day");
  if (!(parsed?.start.isCertain("month") && parsed.start.isCertain("day")) || !month || !day) return null;
  return `${MONTHS[month - 1]} ${day}`;
}

/** "My birthday is May 12", "My aunt's birthday is on June 9th", "My son Leo's birthday is …": a possessive "birthday" and a date. */
export const birthdays: FactRule = (input) => {
  const { text } = input.clause;
  const own = /\bmy birthday is (?:on )?(.+)$/i.exec(text);
  if (own) {
    const day = calendarDay(own[1] as string);
    return day ? fact(input, { key: "profile:birthday", value: day, subject: "User's", predicate: "birthday is", object: day }) : [];
  }
  const theirs = new RegExp(`\\bmy (${KIN})(?: (${NAME}))?'s birthday is (?:on )?(.+)$`, "iu").exec(text);
  const day = theirs ? calendarDay(theirs[3] as string) : null;
  if (!theirs || !day) return [];
  const relation = (theirs[1] as string).toLowerCase();
  const name = theirs[2];
  const parent = PARENT_WORDS[relation];
  const who = isPartnerWord(relation) ? "family:partner" : parent ? `family:${parent}` : `family:${slug(relation)}`;
  const key = name && !isPartnerWord(relation) && !parent ? `${who}:${nameKey(name)}:birthday` : `${who}:birthday`;
  const person = `${parent ?? relation}${name ? ` ${name}` : ""}`;
  return fact(input, { key, value: day, subject: `User's ${person}'s`, predicate: "birthday is", object: day });
};
