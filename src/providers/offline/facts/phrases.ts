import nlp from "compromise";
import type { Clause } from "./clauses.js";

/** Words that qualify the statement, not its object: "I hate cats now" is about cats. */
const TRAILING_ADVERBS = new Set([
  "now",
  "anymore",
  "too",
  "also",
  "either",
  "lately",
  "nowadays",
  "today",
  "really",
  "much",
  "lot",
  "again",
  "though",
  "honestly",
  "here",
]);
/** An object that starts with one of these is a clause or a pronoun, not a thing: "I love that you…". */
const NOT_A_THING = new Set([
  "it",
  "that",
  "this",
  "them",
  "you",
  "him",
  "her",
  "those",
  "these",
  "one",
  "so",
  "much",
  "lot",
  "what",
  "how",
  "when",
  "where",
  "why",
  "who",
  "if",
  "being",
  "everything",
  "everyone",
  "anything",
  "nothing",
  "something",
  "someone",
  "with",
]);
const CLAUSE_END =
  /\s+(?:because|but|since|when|while|though|although|so|and i|and my|which|if|as|for|with|at|in|on|last|next|this|today|yesterday|tonight|after|before|over|than|instead|to|every|each|during|from|by|twice|once|(?:two|three|four|five|\d+) times|daily|weekly|any ?more)(?:\s+|$)|[.,;:!?()"]/i;

/** The object of a statement: up to the end of its clause, without leading articles, at most six words. */
export function objectPhrase(raw: string): string | null {
  const clause = raw.split(CLAUSE_END)[0] ?? "";
  const words = clause
    .trim()
    .replace(/^(?:way |far )?(?:too much|too many|so much|so many|a lot of|lots of|plenty of|a ton of|tons of|loads of)\s+/i, "")
    .replace(/^(?:the|a|an|my|to|about|doing)\s+/i, "")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6);
  while (words.length > 1 && TRAILING_ADVERBS.has((words[words.length - 1] as string).toLowerCase())) words.pop();
  const phrase = words.join(" ").replace(/[^\p{L}\p{N}' -]+$/u, "");
  if (phrase.length < 2 || NOT_A_THING.has((words[0] ?? "").toLowerCase()) || TRAILING_ADVERBS.has(phrase.toLowerCase())) return null;
  return phrase;
}

/** A key fragment: lower-case words joined by "_", a trailing plural "s" dropped, British spellings made American. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .split(/\s+/)
    .slice(0, 6)
    .map((word) => BRITISH[word] ?? word)
    .map((word) => (word.length > 3 && /[^siu]s$/.test(word) ? word.slice(0, -1) : word))
    .join("_");
}
/** A name as a key fragment: "Ines" stays `ines` (no plural to drop). */
export const nameKey = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "_");

const BRITISH: Record<string, string> = {
  colour: "color",
  flavour: "flavor",
  favourite: "favorite",
  neighbour: "neighbor",
  humour: "humor",
};

const NAME_CONNECTORS = new Set(["de", "da", "van", "von", "der", "del", "la", "le", "of"]);

/**
 * The capitalised run of words at the start of `raw` ("Lund University", "St. Mary's", "New York
 * City"), or null when it starts lower-case: "fear of spiders" is not a place.
 */
export function properPhrase(raw: string): string | null {
  const words = raw.trim().split(/\s+/);
  const kept: string[] = [];
  for (const word of words) {
    const abbreviation = /^(?:St|Dr|Mt)\.$/.test(word);
    const clean = abbreviation ? word : word.replace(/[,.;:!?]+$/, "");
    // "Now that I'm at home I hardly …": the pronoun starts the next statement.
    if (kept.length > 0 && clean === "I") break;
    if (/^\p{Lu}/u.test(clean) || (kept.length > 0 && NAME_CONNECTORS.has(clean))) kept.push(clean);
    else break;
    if (clean !== word) break; // punctuation ends the name
  }
  while (kept.length > 0 && NAME_CONNECTORS.has(kept[kept.length - 1] as string)) kept.pop();
  return kept.length > 0 ? kept.join(" ") : null;
}

/** The first capitalised run after the verb: "a tiny flat in Glasgow" → "Glasgow". */
export function firstProperPhrase(raw: string, clause: Clause): string | null {
  const words = raw.split(/\s+(?:because|but|since|when|while|though|although|so|which|if|and)\s+|[,;:!?()"]/i)[0]?.split(/\s+/) ?? [];
  for (let index = 0; index < words.length; index += 1) {
    const phrase = properPhrase(words.slice(index).join(" "));
    if (phrase && !clause.tagsOf(phrase.split(" ")[0] as string).has("Date")) return phrase;
  }
  return null;
}

/**
 * Whether a capitalised word reads as a person's (or a pet's) name here: compromise knows it as a
 * first name, or as a proper noun that is no adjective, nationality, place or date ("I am Happy
 * with it", "My partner is Italian", "I am Canadian").
 */
export function looksLikeName(word: string, clause: Clause): boolean {
  if (!/^\p{Lu}[\p{L}'-]+$/u.test(word)) return false;
  const tags = clause.tagsOf(word);
  if (tags.has("Person") || tags.has("FirstName")) return true;
  if (NOT_NAMES.some((tag) => tags.has(tag))) return false;
  // Capitalised, compromise calls any word a proper noun ("I am Happy"); written lower-case, an
  // ordinary word shows what it is.
  const lower = nlp(word.toLowerCase()).json({ terms: { tags: true } }) as { terms: { tags: string[] }[] }[];
  return !NOT_NAMES.some((tag) => lower[0]?.terms[0]?.tags.includes(tag));
}
const NOT_NAMES = ["Adjective", "Demonym", "Place", "Date", "Verb", "Adverb", "Expression", "Organization"];

/**
 * The thing a taste is about, or null when the words after the verb are no thing: a pronoun, an
 * infinitive ("I love to…"), a predicate ("…is awesome"), or a phrase cut off at a preposition.
 * "my" becomes "their": the fact is in the third person.
 */
export function thingPhrase(raw: string): string | null {
  if (/^(?:to|all the|these|those|this|that|it|its)\s/i.test(raw.trim())) return null;
  const phrase = objectPhrase(raw);
  // "the idea of …", "the sound of …": a noun with a complement names a proposition, not a thing one likes.
  if (!phrase || /\b(?:is|are|was|were|of)\b/i.test(phrase) || /\s(?:to|with|for|in|on|at|the|a|an|and|or)$/i.test(phrase)) return null;
  const words = nlp(phrase).json({ terms: { tags: true } }) as { terms: { tags: string[] }[] }[];
  const first = words[0]?.terms[0]?.tags ?? [];
  if (first.includes("Pronoun") || first.includes("Preposition") || first.includes("Conjunction") || first.includes("Possessive"))
    return null;
  return phrase.replace(/\bmy\b/gi, "their").replace(/\bme\b/gi, "them");
}
