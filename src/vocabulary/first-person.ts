/**
 * The speaker's own pronouns, singular and plural (a closed class): "Who is our internet
 * provider?" is about the speaker's household as much as "my" would be. Contractions ("I'm",
 * "we're") match by their pronoun.
 */
const FIRST_PERSON = /\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves)\b/i;

/** "US" in capitals is the country, not the pronoun ("Which US states have no sales tax?"). */
const COUNTRY = /\bUS\b/g;

/**
 * Whether `text` speaks in the first person: what a question about the asker, or a statement of
 * the speaker, holds.
 *
 * @example
 * inFirstPerson("We're repainting the hallway."); // true
 * inFirstPerson("The US has fifty states."); // false
 */
export const inFirstPerson = (text: string): boolean => FIRST_PERSON.test(text.replace(COUNTRY, ""));
