import nlp from "compromise";

/**
 * How a clause opens, read with compromise's tagger: the words before its verb, and whether it
 * asks ("Can you …", "Which …") or requests ("Write a haiku.", "Please send it."). What
 * `speaker-statements.ts` and `subjectless-statements.ts` read a turn's sentences with. Closed
 * word classes only, no phrases.
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
export const DISCOURSE_MARKERS = "so and but ok okay well oh yes no hi hey".split(" ");

/** Words that open a social formula, not a statement ("Thanks, Mel!", "Wow, what a view!"): a closed class. */
export const FORMULAE = "thanks thank sorry congrats congratulations welcome hello bye cheers wow aw ah haha lol".split(" ");

/** Words that open a question, or an exclamation ("What a view!"): a closed class. */
export const WH_WORDS = "what which who whom whose where when why how".split(" ");

/** The forms of "be": after a past form, they make it a description of a thing ("Attached is …"). */
export const BE_FORMS = "is are was were be".split(" ");

/** Auxiliaries that open a question before a pronoun ("can you …", "is it …"): a closed class. */
export const AUXILIARIES = "can could will would shall should may might must am is are was were do does did".split(" ");

/** The longest clause handed to the tagger: an opening is read from its first words. */
const MAX_CLAUSE = 240;

/** The words of `clause` (its first `MAX_CLAUSE` characters), tagged. */
export const termsOf = (clause: string): Term[] =>
  (nlp(clause.slice(0, MAX_CLAUSE)).terms().json() as { terms: { normal: string; tags: string[]; post: string }[] }[]).map(
    ({ terms: [term] }) => ({ text: term?.normal ?? "", tags: term?.tags ?? [], post: term?.post ?? "" }),
  );

/** Whether `term` carries one of `tags`. */
export const has = (term: Term | undefined, ...tags: string[]): boolean =>
  term !== undefined && tags.some((tag) => term.tags.includes(tag));

const isOpeningAdverb = (term: Term): boolean => has(term, "Adverb") || OPENING_ADVERBS.includes(term.text);

/** The index of the first word of `terms` after adverbs (and, with `markers`, words like "okay" and "so"); the last word at most. */
export function headIndex(terms: readonly Term[], options: { markers: boolean }): number {
  let head = 0;
  const opens = (term: Term) => isOpeningAdverb(term) || (options.markers && DISCOURSE_MARKERS.includes(term.text));
  while (head < terms.length - 1 && opens(terms[head] as Term)) head++;
  return head;
}

/** Whether `term` is a verb in its base form, or "please" or "let": the head of a request. */
export const isRequest = (term: Term | undefined): boolean =>
  term !== undefined && (has(term, "Imperative", "Infinitive") || ["please", "let", "let's"].includes(term.text));

/** The index of the first word after the first comma at or after `from`, or -1. */
export function afterComma(terms: readonly Term[], from: number): number {
  const comma = terms.findIndex((term, index) => index >= from && term.post.includes(","));
  return comma < 0 ? -1 : comma + 1;
}

/**
 * The tensed forms of "have": a closed class, verbs wherever they stand. The tagger may call one
 * a noun after a noun it read as an adjective ("The new flat has …").
 */
export const HAVE_FORMS = "has have had".split(" ");

/** A verb with a tense: a form of "be" or "have", a modal, a past form, or a present one (which the tagger may also call a base form). */
export const hasTense = (term: Term): boolean =>
  has(term, "Copula", "Modal", "PastTense") || HAVE_FORMS.includes(term.text) || (has(term, "PresentTense") && !has(term, "Gerund"));

/**
 * Whether the clause opening at `head` asks or requests, with or without its question mark: a
 * wh-word ("which crops suit …"; one that opens a clause before a comma, "When the lease ended, …",
 * is read by the clause after it), an auxiliary before a pronoun or "there" ("can you list …", "is
 * there …"), a verb in its base form, or a phrase with no verb of its own that leads into one
 * ("Drawing on the notes above, draft a reply.").
 */
export function asksOrRequests(terms: readonly Term[], head: number): boolean {
  const first = terms[head];
  if (first === undefined) return false;
  const next = afterComma(terms, head);
  if (WH_WORDS.includes(first.text)) return next < 0 || next >= terms.length || asksOrRequests(terms, next);
  if (isRequest(first)) return true;
  if (AUXILIARIES.includes(first.text)) return has(terms[head + 1], "Pronoun") || terms[head + 1]?.text === "there";
  return next > 0 && isRequest(terms[next]) && !terms.slice(head + 1, next).some(hasTense);
}
