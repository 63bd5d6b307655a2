import { escapeRegExp } from "../../util/escape-regexp.js";

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });
/** The speaker's own pronouns (a closed class): a sentence holding one says something of the speaker. */
const FIRST_PERSON_WORDS = "i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us";
const FIRST_PERSON = new RegExp(`\\b(?:${FIRST_PERSON_WORDS})\\b`, "gi");

/** The same pronouns as a POSIX pattern for `~*`: a turn that holds one may say something of its speaker. */
export const FIRST_PERSON_SQL_PATTERN = `\\m(${FIRST_PERSON_WORDS})\\M`;

/**
 * Whether a turn says something of its speaker: one of its sentences, not a question, speaks in
 * the first person. A turn that only asks ("Can you give examples?") states nothing that is, or
 * stops being, true of them.
 *
 * @example
 * saysSomethingOfSpeaker("My garlic is sprouting already!"); // true
 * saysSomethingOfSpeaker("Is it too late to plant garlic?"); // false
 */
export function saysSomethingOfSpeaker(text: string): boolean {
  return statesWith(text, FIRST_PERSON);
}

/** The pronouns of someone the speaker speaks of (a closed class; "it" and "they" name things as often as people). */
const THIRD_PERSON = /\b(?:he|him|his|she|her|hers)\b/gi;

/**
 * Whether a turn says something of its speaker or of someone they speak of: one of its sentences,
 * not a question, speaks in the first person or of "her" or "him". What is said later of a
 * statement about the user's daughter ("my daughter goes to …") may be said of her by pronoun
 * alone.
 *
 * @example
 * saysSomethingOfSomeone("His new job starts on Monday."); // true
 * saysSomethingOfSomeone("Does he need a visa for that?"); // false
 */
export function saysSomethingOfSomeone(text: string): boolean {
  return statesWith(text, FIRST_PERSON) || statesWith(text, THIRD_PERSON);
}

/**
 * Whether a turn says something of someone by one of `names` (a sentence naming them,
 * not a question): "Kofi sold the boat in May." states something of Kofi.
 *
 * @example
 * saysSomethingOfNamed("Kofi sold the boat in May.", ["Kofi"]); // true
 */
export function saysSomethingOfNamed(text: string, names: readonly string[]): boolean {
  const named = names.filter((name) => name.trim().length > 0).map((name) => escapeRegExp(name.trim()));
  // As written: the names are the ones this turn used, and "Will" is no "will".
  return named.length > 0 && statesWith(text, new RegExp(`(?<![\\p{L}\\p{N}])(?:${named.join("|")})(?![\\p{L}\\p{N}])`, "gu"));
}

/**
 * Whether `words` (a global pattern) occur in a sentence of `text` that is not a question. Matched in
 * the whole text, since a name may hold a full stop ("Dr. Osei") that ends a segment: the sentence a
 * match ends in is the one that must not be a question.
 */
function statesWith(text: string, words: RegExp): boolean {
  const sentences = [...SENTENCES.segment(text)];
  return [...text.matchAll(words)].some((match) => {
    const end = match.index + match[0].length;
    const sentence = sentences.find(({ index, segment }) => end > index && end <= index + segment.length);
    return sentence !== undefined && !sentence.segment.trim().endsWith("?");
  });
}
