import nlp from "compromise";

/**
 * How a clause opens, read with compromise's tagger: the words before its verb, and whether that
 * verb is a request's ("Write a haiku.", "Please send it."). Shared by the tests of what a turn
 * states (`speaker-statements.ts`, `subjectless-statements.ts`).
 */

/** One word of a clause as the tagger read it. */
export interface Term {
  /** Its normal form: lower case, no punctuation. */
  text: string;
  tags: string[];
  /** The punctuation after it ("," ends a phrase). */
  post: string;
}

/** Adverbs of time and aspect that may open a clause before its verb ("Finally sold …", "Still living …"): a closed class, and any "-ly" word. */
export const OPENING_ADVERBS = "just still also now already finally recently only even then since lately again".split(" ");

/** Words that open talk before what is said ("Okay, …", "So …"): a closed class. */
const DISCOURSE_MARKERS = "so and but ok okay well oh yes no hi hey".split(" ");

/** The longest clause handed to the tagger: an opening is read from its first words. */
export const MAX_CLAUSE = 240;

/** The words of `clause` (its first `MAX_CLAUSE` characters), tagged. */
export const termsOf = (clause: string): Term[] =>
  (nlp(clause.slice(0, MAX_CLAUSE)).terms().json() as { terms: { normal: string; tags: string[]; post: string }[] }[]).map(
    ({ terms: [term] }) => ({ text: term?.normal ?? "", tags: term?.tags ?? [], post: term?.post ?? "" }),
  );

/** Whether `term` carries one of `tags`. */
export const has = (term: Term | undefined, ...tags: string[]): boolean =>
  term !== undefined && tags.some((tag) => term.tags.includes(tag));

/** Whether `term` is an adverb that may stand before a clause's verb. */
export const isOpeningAdverb = (term: Term): boolean => has(term, "Adverb") || OPENING_ADVERBS.includes(term.text);

/** The index of the first word of `terms` after adverbs (and, with `markers`, words like "okay" and "so"); the last word at most. */
export function headIndex(terms: readonly Term[], options: { markers: boolean }): number {
  let head = 0;
  const opens = (term: Term) => isOpeningAdverb(term) || (options.markers && DISCOURSE_MARKERS.includes(term.text));
  while (head < terms.length - 1 && opens(terms[head] as Term)) head++;
  return head;
}

/** Whether `term` heads a request: a verb in its base form, or "please" or "let" ("Drawing on the notes, draft a reply."). */
export const isRequest = (term: Term | undefined): boolean =>
  term !== undefined && (has(term, "Imperative", "Infinitive") || ["please", "let", "let's"].includes(term.text));
