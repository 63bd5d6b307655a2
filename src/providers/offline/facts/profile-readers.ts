import type { ExtractedFact } from "../../extraction.js";
import { firstProperPhrase, looksLikeName, objectPhrase, properPhrase, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput, retraction, userVerbs } from "./rule.js";
import { asserts, completed, type VerbPhrase } from "./verb-phrases.js";
import { alternation, DIETS, isKin, RELATIONSHIP_STATES, ROLE_WORDS } from "./word-classes.js";

/** The copula's complement with "not" / "no longer" taken off: "am not vegan any more" → "vegan any more". */
const complement = (verb: VerbPhrase) =>
  `${verb.text.replace(/^(?:am|is|are|was|were|be|been|have been|has been)\b\s*/i, "")} ${verb.after}`
    .replace(/^(?:not|no longer)\s+/i, "")
    .trim();
const copula = (verb: VerbPhrase) => verb.head === "be" || /^(?:am|is|are|was|were)\b/i.test(verb.text);

/** "My name is Tomasz Nowak", "call me Jo", "Hi, I am Priya": the possessive "my name", the object of "call me", an introduction. */
export const name: FactRule = (input) => {
  const { text } = input.clause;
  const stated = /\bmy name is\s+(.+)$/i.exec(text) ?? /\b(?:call|calls)\s+me\s+(.+)$/i.exec(text);
  const introduced = stated ? null : /^(?:(?:hi|hello|hey)(?: there)?,?\s+)?I am\s+(\p{Lu}[\p{L}'-]+)(?:,.*)?$/iu.exec(text);
  const raw = stated?.[1] ?? introduced?.[1];
  const found = raw ? properPhrase(raw) : null;
  const words = found?.split(" ").slice(0, 3) ?? [];
  if (words.length === 0 || !words.every((word) => looksLikeName(word, input.clause))) return [];
  const value = words.join(" ");
  return fact(input, { key: "profile:name", value, subject: "User's", predicate: "name is", object: value });
};

/** "I am 34", "I am 29 years old", "I turned 40": a number of years after the copula or "turn". */
export const age: FactRule = (input) => {
  const match = /\bI (?:am|just turned|turned)\s+(\d{1,3})(?:\s+years?\s+old)?(?=$|\s+(?:and|but|last|this|today|now)\b)/i.exec(
    input.clause.text,
  );
  const years = match ? Number(match[1]) : 0;
  if (!match || years < 1 || years > 110) return [];
  return fact(input, { key: "profile:age", value: String(years), predicate: "is", object: `${years} years old` });
};

/**
 * Where the user lives: "live in" a place (not negated), "be based in", and a move "to" a place that
 * is done (a move in progress or to come is not a home yet); "no longer live in" a place retracts it.
 */
export const home: FactRule = (input) => {
  const facts: ExtractedFact[] = [];
  for (const verb of userVerbs(input.clause)) {
    const placeAfter = (preposition: string) => {
      const raw = new RegExp(`^(?:\\w+ly |now |still |back |out |over )*${preposition}\\s+(.+)$`, "i").exec(verb.after)?.[1];
      return raw ? firstProperPhrase(raw, input.clause) : null;
    };
    if ((verb.head === "live" || verb.lemma === "base") && asserts(verb)) {
      const place = placeAfter("in");
      if (!place) continue;
      if (verb.noLonger)
        facts.push(...retraction(input, "profile:location", { predicate: "no longer lives in", object: place, from: verb }, place));
      else if (!verb.negative)
        facts.push(...fact(input, { key: "profile:location", value: place, predicate: "lives in", object: place, from: verb }));
    } else if (/^(?:move|relocate)$/.test(verb.lemma) && !verb.negative) {
      const place = placeAfter("to");
      if (place)
        facts.push(
          ...fact(input, { key: "profile:location", value: place, predicate: "lives in", object: place, from: verb, completes: true }),
        );
    }
  }
  return facts;
};

/** "I am from Ghent", "I grew up in Porto", "I was born in Lyon": where the user comes from. */
export const origin: FactRule = (input) => {
  const match = /\bI (?:am (?:originally )?from|grew up in|was born (?:and raised )?in|come from)\s+(.+)$/i.exec(input.clause.text);
  const place = match ? properPhrase(match[1] as string) : null;
  if (!place || input.clause.tagsOf(place.split(" ")[0] as string).has("Demonym")) return [];
  return fact(input, { key: "profile:origin", value: place, predicate: "is from", object: place });
};

/** People words that are no job: kin, roles towards others, and nouns that take "of" ("a fan of", "a mother of two"). */
const NOT_A_JOB = new RegExp(`^(?:${alternation(ROLE_WORDS)}|person|people|member)$`, "i");

/** "a welder", "a software developer" after the copula: a noun compromise knows as a person's role, not kin. */
function occupationOf(raw: string, tagsOf: (word: string) => ReadonlySet<string>): string | null {
  if (/^(?:an?\s+)?[\p{L} -]+?\s+of\b/iu.test(raw)) return null;
  const phrase = objectPhrase(raw.replace(/^(?:an?|the)\s+/i, ""));
  const head = phrase?.split(" ").pop();
  if (!phrase || !head || isKin(head) || NOT_A_JOB.test(head) || !tagsOf(head).has("Actor")) return null;
  return phrase.split(" ").every((word) => !tagsOf(word).has("Adjective")) ? phrase : null;
}

/**
 * An employer after "at" / "for": a proper name ("Fenwick", "St. Anne's"), or a definite one ("the
 * library"); an indefinite one ("a design studio") only where a noun says it is a job's (`ofAJob`).
 */
function employerOf(raw: string, ofAJob = false): string | null {
  const proper = properPhrase(raw);
  if (proper) return proper;
  const phrase = /^(the|an?)\s+(\p{Ll}[\p{L}-]*(?:\s+\p{Ll}[\p{L}-]*)?)$/u.exec(raw.trim().replace(/[,.;].*$/, ""));
  if (!phrase || (phrase[1] !== "the" && !ofAJob)) return null;
  return `${phrase[1]} ${phrase[2]}`;
}

const article = (phrase: string) => (/^[aeiou]/i.test(phrase) ? "an" : "a");

/**
 * Jobs and employers: "work as" a job, "work at / for" an employer, "I am a <role> (at …)" where
 * the tagger knows the noun as a person's role, "got a job as … at …" and "joined <name> as …"
 * once done, "I am retired".
 */
export const work: FactRule = (input) => {
  const { tagsOf } = input.clause;
  const facts: ExtractedFact[] = [];
  for (const verb of userVerbs(input.clause)) {
    if (!asserts(verb) || verb.negative || verb.noLonger) continue;
    let occupation: string | null = null;
    let employer: string | null = null;
    let completes = false;
    if (verb.head === "work") {
      const as = /^as\s+(?:an?\s+)?(.+?)(?:\s+(?:at|for|with)\s+(.+))?$/i.exec(verb.after);
      const at = /^(?:at|for)\s+(.+)$/i.exec(verb.after);
      occupation = as ? objectPhrase(as[1] as string) : null;
      employer = as?.[2] ? employerOf(as[2]) : at ? employerOf(at[1] as string) : null;
    } else if (copula(verb)) {
      if (/^retired\b/i.test(complement(verb))) {
        facts.push(...fact(input, { key: "profile:occupation", value: "retired", predicate: "is retired", from: verb }));
        facts.push(...retraction(input, "profile:employer", { predicate: "retired", from: verb }));
        continue;
      }
      const isA = /^(an?\s+.+?)(?:\s+(?:at|for|with)\s+(.+))?$/i.exec(complement(verb));
      occupation = isA ? occupationOf(isA[1] as string, tagsOf) : null;
      employer = occupation && isA?.[2] ? employerOf(isA[2]) : null;
    } else if (verb.head === "join" && /^\p{Lu}.*\s+as\s+/u.test(verb.after)) {
      // "joined Orla as a sound engineer": an organisation by name, and the role one joins it in.
      const joined = /^(.+?)\s+as\s+(?:an?\s+)?(.+)$/.exec(verb.after);
      employer = joined ? properPhrase(joined[1] as string) : null;
      occupation = employer && joined ? objectPhrase(joined[2] as string) : null;
      completes = true;
    } else {
      // A job of the user's named in a done change ("got a job as … at …", "moved to Bergen for a job at a boatyard").
      const job = /\b(?:an?|my) (?:new )?job(?:\s+as\s+(?:an?\s+)?(.+?))?(?:\s+(?:at|with)\s+(.+))?$/i.exec(verb.after);
      if (!job || !completed(verb)) continue;
      occupation = job[1] ? objectPhrase(job[1]) : null;
      employer = job[2] ? employerOf(job[2], true) : null;
      completes = true;
    }
    if (occupation)
      facts.push(
        ...fact(input, {
          key: "profile:occupation",
          value: occupation,
          predicate: `works as ${article(occupation)}`,
          object: occupation,
          from: verb,
          completes,
        }),
      );
    if (employer)
      facts.push(
        ...fact(input, { key: "profile:employer", value: employer, predicate: "works at", object: employer, from: verb, completes }),
      );
  }
  return facts;
};

/** "I study law (at Leiden University)", "I am majoring in …", "a student at …", "I graduated from …". */
export const studies: FactRule = (input) => {
  const facts: ExtractedFact[] = [];
  for (const verb of userVerbs(input.clause)) {
    if (!asserts(verb) || verb.negative || verb.noLonger) continue;
    if (verb.head === "graduate") {
      const school = /^from\s+(.+)$/i.exec(verb.after);
      const named = school ? properPhrase(school[1] as string) : null;
      if (named)
        facts.push(
          ...fact(input, {
            key: "profile:alma_mater",
            value: named,
            predicate: "graduated from",
            object: named,
            from: verb,
            completes: true,
          }),
        );
      continue;
    }
    const field = /^study|^major$/.test(verb.head)
      ? /^(?:in\s+)?(?!for\b|to\b|hard\b|a lot\b)(.+?)(?:\s+at\s+(.+))?$/i.exec(verb.after)
      : null;
    const student = copula(verb) ? /^an? (?:\p{L}+ )?student at\s+(.+)$/iu.exec(complement(verb)) : null;
    const subject = field ? objectPhrase(field[1] as string) : null;
    const school = field?.[2] ? properPhrase(field[2]) : student ? properPhrase(student[1] as string) : null;
    if (!subject && !school) continue;
    const value = { ...(subject ? { subject } : {}), ...(school ? { school } : {}) };
    facts.push(
      ...(subject
        ? fact(input, {
            key: "profile:studies",
            value,
            predicate: "studies",
            object: school ? `${subject} at ${school}` : subject,
            from: verb,
          })
        : fact(input, { key: "profile:studies", value, predicate: "is a student at", object: school as string, from: verb })),
    );
  }
  return facts;
};

const DIET = new RegExp(`^(?:an? )?(?:strict )?(${alternation(DIETS)})\\b`, "i");
const STATE = new RegExp(`^(?:now |officially |happily )?(${alternation(RELATIONSHIP_STATES)})\\b(?!\\s+to\\b)`, "i");

/**
 * States the copula gives the user from small closed classes: a diet ("I am vegan"), a relationship
 * state ("I am single"), an allergy ("I am allergic to cats and dust", one fact each); said to be
 * over ("not … any more", "no longer"), each retracts what it held.
 */
export const states: FactRule = (input) => {
  const facts: ExtractedFact[] = [];
  for (const verb of userVerbs(input.clause)) {
    if (!copula(verb) || !asserts(verb)) continue;
    const said = complement(verb);
    const diet = DIET.exec(said)?.[1]?.toLowerCase();
    const state = STATE.exec(said)?.[1]?.toLowerCase();
    const allergic = /^(?:very |severely |mildly )?allergic to\s+(.+)$/i.exec(said);
    if (verb.noLonger) {
      if (diet) facts.push(...retraction(input, "profile:diet", { predicate: "is no longer", object: diet, from: verb }, diet));
      if (allergic) facts.push(...allergyEnded(input, verb, allergic[1] as string));
      continue;
    }
    if (verb.negative) continue;
    if (diet) facts.push(...fact(input, { key: "profile:diet", value: diet, predicate: "is", object: diet, from: verb }));
    if (state) facts.push(...fact(input, { key: "profile:relationship_status", value: state, predicate: "is", object: state, from: verb }));
    if (allergic)
      for (const allergen of listed(allergic[1] as string, input))
        facts.push(
          ...fact(input, { key: `allergy:${slug(allergen)}`, value: allergen, predicate: "is allergic to", object: allergen, from: verb }),
        );
  }
  return facts;
};

/** The items of a coordination ("cats, dust and pollen"), up to where a verb begins a new statement. */
function listed(raw: string, input: RuleInput): string[] {
  const parts = raw.split(/\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+/);
  const end = parts.findIndex((part, index) => index > 0 && input.clause.tagsOf(part.split(/\s+/)[0] ?? "").has("Verb"));
  return (end === -1 ? parts : parts.slice(0, end)).map((part) => objectPhrase(part)).filter((part): part is string => part !== null);
}

/** "I am no longer allergic to eggs": each held allergy that names it ends. */
function allergyEnded(input: RuleInput, verb: VerbPhrase, raw: string): ExtractedFact[] {
  const allergen = objectPhrase(raw);
  if (!allergen) return [];
  return [...input.known.values()]
    .filter((held) => held.key.startsWith("allergy:") && held.content.toLowerCase().includes(allergen.toLowerCase().replace(/s$/, "")))
    .flatMap((held) => retraction(input, held.key, { predicate: "is no longer allergic to", object: allergen, from: verb }));
}
