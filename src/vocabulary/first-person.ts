/**
 * The speaker's own pronouns, singular and plural (a closed class): "Who is our internet
 * provider?" is about the speaker's household as much as "my" would be. Contractions ("I'm",
 * "we're") match by their pronoun.
 */
const FIRST_PERSON = /\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves)\b/i;

/** "US" in capitals is the country, not the pronoun ("Which US states have no sales tax?"), unless the whole turn is in capitals ("THEY EVICTED US"). */
const COUNTRY = /\bUS\b/g;

/**
 * Whether `text` speaks in the first person: what a question about the asker, or a statement of
 * the speaker, holds. `allCapitals` says the whole turn is typed in capitals, where "US" is the
 * pronoun; a sentence is judged by its turn, so a heading in capitals among ordinary sentences
 * keeps "US" the country.
 *
 * @example
 * inFirstPerson("We're repainting the hallway."); // true
 * inFirstPerson("The US has fifty states."); // false
 */
export const inFirstPerson = (text: string, allCapitals = !/\p{Ll}/u.test(text)): boolean =>
  FIRST_PERSON.test(allCapitals ? text : text.replace(COUNTRY, ""));
