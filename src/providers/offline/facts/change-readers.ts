import { canonicalAttribute } from "../../../vocabulary/fact-attributes.js";
import type { ExtractedFact } from "../../extraction.js";
import { sameThing, subjectOf } from "../../facts/fact-subject.js";
import type { KnownFact } from "../../types.js";
import type { Clause } from "./clauses.js";
import { gerund, thirdPerson } from "./conjugation.js";
import type { FactParts } from "./fact-text.js";
import { looksLikeName, objectPhrase, properPhrase, slug } from "./phrases.js";
import { clauseVerbs, type FactRule, fact, type RuleInput, userVerbs } from "./rule.js";
import { asserts, completed, type VerbPhrase } from "./verb-phrases.js";
import {
  ATTITUDE_VERBS,
  alternation,
  CONSUMING_VERBS,
  ENDING_VERBS,
  isPartnerWord,
  KIN_WORDS,
  PARENT_WORDS,
  SPECIES,
  SPECIES_WORDS,
} from "./word-classes.js";

const is = (list: readonly string[], lemma: string) => list.some((word) => lemma === word || lemma.startsWith(`${word} `));

/** A gerund of a verb of consuming ("smoking", "drinking"): what stopping it is, a habit of its own. */
const CONSUMING_GERUND = new RegExp(`^(?:${[...CONSUMING_VERBS].map((verb) => verb.replace(/e$/, "")).join("|")})ing\\b`, "i");

/** The thing a verb acts on: its gerund and its object, up to the end of the phrase ("smoking", "the van"). */
function thingActedOn(verb: VerbPhrase): string | null {
  const trailing = verb.lemma
    .split(/\s+/)
    .slice(1)
    .filter((word) => /ing$/.test(word))
    .join(" ");
  return objectPhrase(`${trailing ? `${trailing} ` : ""}${verb.after.replace(/^(?:on|with|of)\s+/i, "")}`);
}

/** The user's current facts about a thing that still hold (the write path's reading of "the same thing"). */
function heldAbout(input: RuleInput, thing: string, keys: RegExp = /./): KnownFact[] {
  const statement = subjectOf({ key: `habit:${slug(thing)}`, value: { object: thing }, content: "" });
  return [...input.known.values()].filter((held) => {
    const subject = subjectOf(held);
    return keys.test(held.key) && subject.polarity === 1 && sameThing(statement, subject);
  });
}

function retract(input: RuleInput, held: readonly KnownFact[], parts: FactParts): ExtractedFact[] {
  return held.flatMap((item) =>
    fact(input, { ...parts, key: item.key, value: `${parts.predicate} ${parts.object ?? ""}`.trim(), operation: "DELETE" }),
  );
}

const heldAttribute = (input: RuleInput, attribute: string) =>
  [...input.known.values()].filter((held) => canonicalAttribute(held.key) === attribute);
const mentions = (held: KnownFact, words: string) =>
  `${held.content} ${JSON.stringify(held.value)}`.toLowerCase().includes(words.toLowerCase());

/**
 * Changes of state the user says of themselves, read from the verb's lexical aspect against what
 * the memory holds, and written only when the clause says the change is done (not "I'm quitting",
 * "I will sell", "I have to give up"):
 * - a verb of stopping with a thing: a stopped consumption is a fact of its own ("User quit
 *   smoking."); anything else held about the thing is retracted;
 * - "no longer" / "not … any more" with a verb: what is held about its object is retracted;
 * - "used to" with a verb: a past habit ("User used to play chess.");
 * - leaving or retiring: the employer held (named, or any when "my job"), and a place left; the
 *   occupation too, since the work it named has ended;
 * - selling or giving away: the possession held; breaking up or divorcing: the partner held;
 * - graduating or dropping out: the studies held.
 */
export const ownChanges: FactRule = (input) =>
  userVerbs(input.clause).flatMap((verb): ExtractedFact[] => {
    // "I used to be a postman": a past state, not a pastime (the profile's own readers say what holds now).
    if (verb.usedTo && verb.head !== "be") {
      // "used to fence at university": the activity is the verb's when its object is a place or a time.
      const object = objectPhrase(verb.after);
      const thing = object && !/^(?:at|in|on|for|with|to|from|when|as)\b/i.test(verb.after) ? object : gerund(verb.head);
      return fact(input, {
        type: "preference",
        key: `hobby:${slug(thing)}`,
        value: { activity: thing, stopped: true },
        predicate: `used to ${verb.head}`,
        ...(object ? { object } : {}),
      });
    }
    if (verb.noLonger || verb.negative || !completed(verb)) return lapsed(input, verb);
    const thing = thingActedOn(verb);
    if (is(ENDING_VERBS.leaving, verb.lemma) || verb.lemma === "retire") return left(input, verb);
    if (is(ENDING_VERBS.cessation, verb.lemma) && thing) {
      if (CONSUMING_GERUND.test(thing) || heldAbout(input, thing, /^consumes:/).length > 0) {
        const habit = thing.replace(/^(?:eating|drinking)\s+(?=\S)/i, "");
        return fact(input, {
          type: "preference",
          key: `consumes:${slug(habit)}`,
          value: { habit, stopped: true },
          predicate: "quit",
          object: thing,
          from: verb,
          completes: true,
        });
      }
      return retract(input, heldAbout(input, thing), { predicate: "stopped", object: thing, from: verb, completes: true });
    }
    if (is(ENDING_VERBS.parting, verb.lemma) && thing)
      return retract(input, heldAbout(input, thing, /^owns:/), { predicate: "no longer has", object: thing });
    if (is(ENDING_VERBS.separation, verb.lemma)) return separated(input, verb);
    if (is(ENDING_VERBS.studies, verb.lemma) && (verb.head === "graduate" || /\bout\b/.test(verb.lemma))) {
      const how = verb.head === "graduate" ? "graduated" : "dropped out";
      return heldAttribute(input, "profile:studies").length > 0
        ? fact(input, { key: "profile:studies", value: { status: how }, predicate: how, from: verb, completes: true })
        : [];
    }
    return [];
  });

/** "I no longer drive", "I don't play tennis any more": what is held about the verb's object (or its gerund) ends. */
function lapsed(input: RuleInput, verb: VerbPhrase): ExtractedFact[] {
  // Homes, work, tastes and consumption have readers of their own for "no longer".
  if (!verb.noLonger || !asserts(verb) || /^(?:be|have|live|work)$/.test(verb.head) || ATTITUDE_VERBS[verb.head] !== undefined) return [];
  if (CONSUMING_VERBS.has(verb.head)) return [];
  const object = thingActedOn(verb);
  // With no object the activity is the verb itself: its root matches a held "knitting".
  return retract(input, heldAbout(input, object ?? verb.head), {
    predicate: `no longer ${thirdPerson(verb.head)}`,
    ...(object ? { object } : {}),
    from: verb,
  });
}

/** Leaving a job, an employer or a place; retiring. */
function left(input: RuleInput, verb: VerbPhrase): ExtractedFact[] {
  const employer = heldAttribute(input, "profile:employer");
  const occupation = heldAttribute(input, "profile:occupation").filter((held) => held.value !== "retired");
  if (verb.lemma === "retire")
    return [
      ...retract(input, employer, { predicate: "retired", from: verb, completes: true }),
      ...fact(input, { key: "profile:occupation", value: "retired", predicate: "is retired", from: verb, completes: true }),
    ];
  const named = properPhrase(verb.after.replace(/^(?:my job (?:at|with)|the job at|from|at)\s+/i, ""));
  const ofAJob = /^(?:my|the) (?:job|position|role)\b/i.test(verb.after);
  const place = heldAttribute(input, "profile:location").filter((held) => named !== null && mentions(held, named));
  if (place.length > 0) return retract(input, place, { predicate: "no longer lives in", object: named as string });
  // The object of the verb, named or definite ("the design studio"), is an employer when the held one is it.
  const object = objectPhrase(verb.after.replace(/^(?:my job (?:at|with)|the job at|from|at)\s+/i, ""));
  const employers = employer.filter((held) => (named ? mentions(held, named) : ofAJob || (object !== null && mentions(held, object))));
  if (employers.length === 0) return [];
  const what = named ?? (ofAJob || object === null ? "their job" : `the ${object}`);
  return retract(input, [...employers, ...occupation], { predicate: "left", object: what, from: verb, completes: true });
}

/** "I broke up with Jan", "Jan and I split up", "I divorced Jan": the partner held (by that name when one is said). */
function separated(input: RuleInput, verb: VerbPhrase): ExtractedFact[] {
  const said = [...`${verb.before} ${verb.after}`.matchAll(/\b\p{Lu}[\p{L}'-]+\b/gu)]
    .map((match) => match[0])
    .filter((word) => word !== "I" && looksLikeName(word, input.clause));
  const partners = heldAttribute(input, "profile:partner").filter((held) => said.length === 0 || said.some((name) => mentions(held, name)));
  return retract(input, partners, { predicate: "separated from", object: said[0] ?? "their partner", from: verb, completes: true });
}

const NAME = "\\p{Lu}[\\p{L}'-]+";
const WHO = `(?:(?:my|our) (${alternation([...KIN_WORDS, ...SPECIES_WORDS])})(?: (${NAME}))?|(${NAME}))`;

/**
 * Who a clause says died or parted from the user, by name or by relation ("my grandad", "our cat
 * Pixel", "Rolo"): the subject of a verb of dying, or the partner named with a verb of separating.
 * Kept apart so that a clause naming someone who died does not also write them as current.
 */
export function endedPeople(clause: Clause): { names: string[]; relations: string[] }[] {
  const found: { names: string[]; relations: string[] }[] = [];
  for (const verb of clauseVerbs(clause)) {
    if (!is(ENDING_VERBS.death, verb.lemma) || verb.negative || !completed(verb)) continue;
    const who = new RegExp(`${WHO}\\s*$`, "iu").exec(verb.before.replace(/\s+(?:just|sadly|finally|recently)$/i, ""));
    if (!who) continue;
    const name = who[2] ?? who[3];
    found.push({
      names: name && looksLikeName(name, clause) ? [name] : [],
      relations: who[1] ? [who[1].toLowerCase()] : [],
    });
  }
  return found;
}

/** Deaths said of the user's people and animals: each held fact naming them (by name, or by the relation's key) ends. */
export const deaths: FactRule = (input) =>
  endedPeople(input.clause).flatMap(({ names, relations }) => {
    const held = [...input.known.values()].filter((item) => {
      const key = canonicalAttribute(item.key);
      if (!/^(?:family|pet)(?::|$)|^profile:partner$/.test(key)) return false;
      if (names.length > 0) return names.some((name) => mentions(item, name));
      return relations.some((relation) =>
        key.includes(PARENT_WORDS[relation] ?? SPECIES[relation] ?? (isPartnerWord(relation) ? "partner" : relation)),
      );
    });
    const who = names[0] ?? `User's ${relations[0]}`;
    return held.flatMap((item) =>
      fact(input, { key: item.key, value: `${who} died.`, subject: who, predicate: "died", operation: "DELETE" }),
    );
  });
