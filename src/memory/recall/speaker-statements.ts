const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });
/** The speaker's own pronouns (a closed class): a sentence holding one says something of the speaker. */
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b/i;

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
  return [...SENTENCES.segment(text)].some(({ segment }) => !segment.trim().endsWith("?") && FIRST_PERSON.test(segment));
}
