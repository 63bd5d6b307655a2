import type { ExtractedFact, TraitEvidenceCandidate } from "../../extraction.js";
import { thirdPerson } from "./conjugation.js";
import { objectPhrase, slug, thingPhrase } from "./phrases.js";
import { type FactRule, fact, type RuleInput, userVerbs } from "./rule.js";
import { asserts, type VerbPhrase } from "./verb-phrases.js";
import { ATTITUDE_VERBS, CONSUMING_VERBS, STRONG_ATTITUDES } from "./word-classes.js";

/** What a verb acts on: the gerund its lemma keeps ("love hiking" → "hiking"), then the words after it. */
function actedOn(verb: VerbPhrase): string {
  const gerund = verb.lemma
    .split(/\s+/)
    .slice(1)
    .filter((word) => /ing$/.test(word))
    .join(" ");
  return `${gerund ? `${gerund} ` : ""}${verb.after}`.trim();
}

/**
 * Likes and dislikes: a verb of the closed class of liking (love, like, enjoy, prefer, hate…) with
 * the user as subject and a thing as object, or "can't stand" a thing; negation is scoped to the
 * verb — "I don't like X" is a dislike, "I no longer like X" an ending, "I don't hate X" says
 * nothing. A fact under `attitude:<thing>`, and evidence for the matching trait and against its
 * opposite, so a changed taste moves the traits too.
 */
export function attitudes(input: RuleInput): { facts: ExtractedFact[]; traits: TraitEvidenceCandidate[] } {
  const facts: ExtractedFact[] = [];
  const traits: TraitEvidenceCandidate[] = [];
  for (const verb of userVerbs(input.clause)) {
    if (!asserts(verb)) continue;
    const standing = verb.head === "stand" && verb.negative;
    const lean = standing ? -1 : ATTITUDE_VERBS[verb.head];
    const object = lean === undefined ? null : thingPhrase(actedOn(verb));
    if (lean === undefined || !object || (verb.negative && !standing && lean < 0)) continue;
    const [predicate, polarity] = standing
      ? ["can't stand", -1]
      : verb.noLonger
        ? [`no longer ${thirdPerson(verb.head)}`, 0]
        : verb.negative
          ? [`doesn't ${verb.head}`, -1]
          : [thirdPerson(verb.head), lean];
    const strong = standing || STRONG_ATTITUDES.has(verb.head) || verb.noLonger;
    facts.push(
      ...fact(input, {
        type: "preference",
        key: `attitude:${slug(object)}`,
        value: { attitude: predicate, polarity, object },
        predicate,
        object,
        from: verb,
        confidence: strong ? 0.95 : 0.85,
      }),
    );
    if (polarity === 0 || facts.length === 0) continue;
    const [kept, opposite] = polarity > 0 ? ["likes", "dislikes"] : ["dislikes", "likes"];
    const evidence = (key: string, direction: "supporting" | "contradicting"): TraitEvidenceCandidate => ({
      subtype: "preference",
      key: `${key}:${slug(object)}`,
      content: `User ${key} ${object}.`,
      direction,
      quality: strong ? "A" : "B",
      source_seqs: input.sourceSeqs,
    });
    traits.push(evidence(kept, "supporting"), evidence(opposite, "contradicting"));
  }
  return { facts, traits };
}

/** "My favourite band is Low": the possessive "favourite" and a copula; British and American spellings one key. */
export const favorites: FactRule = (input) => {
  const match = /\bmy\s+(?:all[- ]time\s+)?favou?rite\s+([\p{L}\s]{2,30}?)\s+(?:is|are)\s+(?:still\s+)?(.+)$/iu.exec(input.clause.text);
  const value = match ? objectPhrase(match[2] as string) : null;
  if (!match || !value) return [];
  const category = (match[1] as string).trim().toLowerCase();
  return fact(input, {
    type: "preference",
    key: `favorite:${slug(category)}`,
    value: { category, value },
    subject: "User's",
    predicate: `favorite ${category} is`,
    object: value,
  });
};

/** A number, or a determiner of amount, at the head of a noun phrase. */
const QUANTITY = /^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple|several|many|some|lots|plenty)\b/i;
const QUANTITY_OF = new RegExp(`${QUANTITY.source}\\s+[\\p{L}-]+\\s+of\\s+`, "iu");

/**
 * What the user eats, drinks, smokes or vapes, as a habit in the simple present: "I drink green tea",
 * "I don't eat pork" (never), "I don't smoke any more" (stopped).
 */
export const consumption: FactRule = (input) =>
  userVerbs(input.clause).flatMap((verb) => {
    if (!CONSUMING_VERBS.has(verb.head) || !asserts(verb) || verb.aspect !== "simple" || verb.tense !== "present") return [];
    // A counted object names an amount: "three mugs of cocoa" is cocoa, "two cups a day" no thing at all.
    const acted = actedOn(verb).replace(QUANTITY_OF, "");
    const item = QUANTITY.test(acted) ? null : objectPhrase(acted);
    if (!item) return [];
    const predicate = verb.noLonger
      ? `no longer ${thirdPerson(verb.head)}`
      : verb.negative
        ? `doesn't ${verb.head}`
        : thirdPerson(verb.head);
    const value = { item, verb: verb.head, ...(verb.negative || verb.noLonger ? { stopped: verb.noLonger, never: !verb.noLonger } : {}) };
    return fact(input, { type: "preference", key: `consumes:${slug(item)}`, value, predicate, object: item, from: verb });
  });

/**
 * Pastimes by their constructions: "play" a noun ("I play the cello"), "go" with a gerund ("I go
 * bouldering"), "took up" a thing, "my hobby is"; languages spoken (proper nouns after "speak") and
 * being learnt ("I am learning Welsh", in progress and written so).
 */
export const hobbies: FactRule = (input) => {
  const { tagsOf } = input.clause;
  const facts: ExtractedFact[] = [];
  /** A pastime, a language or a subject learnt: the thing is the key's, the value's and the sentence's object. */
  const add = (namespace: string, thing: string, predicate: string, verb?: VerbPhrase, completes = false) =>
    facts.push(
      ...fact(input, {
        type: "preference",
        key: `${namespace}:${slug(thing)}`,
        value: thing,
        predicate,
        object: thing,
        ...(verb ? { from: verb } : {}),
        completes,
      }),
    );
  for (const verb of userVerbs(input.clause)) {
    if (!asserts(verb) || verb.negative || verb.noLonger) continue;
    const acted = actedOn(verb);
    if (verb.head === "play" && !/^(?:with|a|an|some|around|it|them)\b/i.test(verb.after)) {
      const activity = objectPhrase(verb.after.replace(/^the\s+/i, ""));
      const head = activity?.split(" ").at(-1);
      if (activity && head && tagsOf(head).has("Noun") && activity.split(" ").length <= 3)
        add("hobby", activity, /^the\s/i.test(verb.after) ? "plays the" : "plays", verb);
    } else if (verb.head === "go" && /^\p{L}+ing\b/u.test(acted)) {
      add("hobby", /^\p{L}+ing/u.exec(acted)?.[0] as string, "goes", verb);
    } else if (verb.lemma === "take up") {
      const activity = objectPhrase(acted);
      if (activity && !/^(?:the|a|an|my|some|space|time|room)\b/i.test(acted)) add("hobby", activity, "took up", verb, true);
    } else if (verb.head === "speak") {
      for (const language of acted.match(/\b\p{Lu}\p{Ll}+\b/gu) ?? [])
        if (tagsOf(language).has("ProperNoun") && !tagsOf(language).has("Person")) add("language", language, "speaks", verb);
    } else if (verb.head === "learn" && verb.aspect === "progressive") {
      const subject = objectPhrase(acted);
      // A language or a skill is learnt bare ("learning Welsh"); "a ton", "so much" are amounts.
      if (subject && !/^(?:how|to|about|an?|so|more|lots?)\b/i.test(acted)) add("learning", subject, "is learning", verb);
    }
  }
  const said = /\bmy (?:favou?rite )?hobb(?:y is|ies are) (.+)$/i.exec(input.clause.text);
  for (const part of said ? (said[1] as string).split(/\s*,\s*(?:and\s+)?|\s+and\s+/) : []) {
    const activity = objectPhrase(part);
    if (activity) add("hobby", activity, "has the hobby of");
  }
  return facts;
};

/** "I own a Vespa", "I drive a Subaru", "I ride a motorbike": what the user owns, by the verbs of owning and using one. */
export const possessions: FactRule = (input) =>
  userVerbs(input.clause).flatMap((verb) => {
    if (!/^(?:own|drive|ride)$/.test(verb.head) || !asserts(verb) || verb.aspect !== "simple" || verb.negative || verb.noLonger) return [];
    const thing = /^(?:an?|my|our|two|an old|a new)\s+(.+)$/i.exec(verb.after)?.[1];
    const phrase = thing ? objectPhrase(thing) : null;
    if (!phrase || phrase.split(" ").length > 4) return [];
    return fact(input, {
      key: `owns:${slug(phrase)}`,
      value: { thing: phrase },
      predicate: `${thirdPerson(verb.head)} ${/^[aeiou]/i.test(phrase) ? "an" : "a"}`,
      object: phrase,
      from: verb,
    });
  });
