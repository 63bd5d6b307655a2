import { has, hasTense, OPENING_ADVERBS, type Term, termsOf } from "./clause-openings.js";

/**
 * Statements of the speaker said inside a question ("My kettle leaks at the base, is it worth
 * fixing?", "Now that we have sold the car, how do we get around?"): a clause whose subject is the
 * speaker, or something of theirs, before a verb with a tense. Users often say what is true of
 * them only on the way to asking something. Grammar only: closed classes and compromise's tags.
 */

/** The speaker as a subject (a closed class; the tagger keeps a contraction's pronoun as one word, "i've"). */
const FIRST_PERSON_SUBJECT = /^(?:i|we)(?:'m|'ve|'d|'ll|'re)?$/;

/** The speaker's possessives: "my kettle leaks" says something of theirs. */
const FIRST_PERSON_POSSESSIVE = ["my", "our"];

/** A word a question stating something of its speaker must hold, read before the tagger is. */
export const STATING_WORD = /\b(?:i|we|my|our)\b/i;

/** Words after which a subject is asked about or supposed, not stated: "if I move …", "whether we should …". */
export const SUPPOSING = ["if", "whether", "unless", "suppose", "supposing"];

/** Prepositions (a closed class): "my" after one is in a phrase, not a subject ("the bus to my office leaves …"). */
export const PREPOSITIONS = "of for from to on in at with about by into over under than like after before through".split(" ");

/** Words joining two subjects: "my wife and I file …" is one subject. */
const JOINING = ["and", "or"];

/** Modals that weigh a choice or a wish rather than state ("I should sell", "I'd like …"): "can" and "will" state. */
const WEIGHING_MODALS = "should could would might may must ought".split(" ");

/** Words after a verb that make its clause an embedded question ("I was wondering if …", "I'm curious what …"). */
const EMBEDDED_QUESTION = "if whether what which who how why".split(" ");

/** The most words between a possessive and its noun phrase's verb ("my old red kettle leaks"). */
const MAX_NOUN_PHRASE = 4;

/** Adverbs and negations ("I really love", "I don't have", "I never sleep") before the verb they qualify. */
const qualifies = (term: Term) => has(term, "Adverb", "Negative") || OPENING_ADVERBS.includes(term.text);

/** A modal that weighs rather than states; a contraction's modal has no text of its own ("i'd" + "'d"). */
export const weighs = (term: Term, subject: Term | undefined) =>
  has(term, "Modal") && (WEIGHING_MODALS.includes(term.text) || (term.text === "" && /'d$/.test(subject?.text ?? "")));

/** Where the subject that starts at `subject` ends: after a pronoun, or after the words a possessive leads ("my 10-year-old son"). */
function subjectEnd(terms: readonly Term[], subject: number): number {
  if (!FIRST_PERSON_POSSESSIVE.includes(terms[subject]?.text ?? "")) return subject + 1;
  const end = Math.min(terms.length, subject + 1 + MAX_NOUN_PHRASE);
  let at = subject + 1;
  // A comma ends the phrase: "About my car, is it …" has no verb of the car's.
  while (
    at < end &&
    has(terms[at], "Noun", "Adjective", "Value") &&
    !has(terms[at], "Verb", "Pronoun") &&
    !terms[at - 1]?.post.includes(",")
  )
    at++;
  return at === subject + 1 ? -1 : at;
}

/**
 * Whether the clause whose subject spans `subject` to `end` states: after adverbs, negations and
 * auxiliaries that do not weigh ("I've been feeling …", "I can't sleep …"), a verb; without an
 * auxiliary one with a tense. After "I" or "we" a word the tagger calls a noun is a verb it
 * misread ("I work nights", "we garden"). A verb followed by "if" or a wh-word asks ("I was
 * wondering if …").
 */
function statesAfter(terms: readonly Term[], subject: number, end: number): boolean {
  let at = end;
  let afterAuxiliary = false;
  for (; at < terms.length; at++) {
    const term = terms[at] as Term;
    if (weighs(term, terms[subject])) return false;
    if (qualifies(term)) continue;
    if (!has(term, "Auxiliary", "Modal") || (has(term, "Copula") && !has(terms[at + 1], "Verb"))) break;
    afterAuxiliary = true;
  }
  const verb = terms[at];
  if (verb === undefined) return false;
  const pronoun = FIRST_PERSON_SUBJECT.test(terms[subject]?.text ?? "");
  const misread = pronoun && has(verb, "Noun") && !has(verb, "Pronoun", "Determiner", "Possessive");
  if (!(hasTense(verb) || (afterAuxiliary && has(verb, "Verb")) || misread)) return false;
  // The verb's complement: an embedded question, after an adjective at most ("I'm curious what …").
  const next = has(terms[at + 1], "Adjective") ? terms[at + 2] : terms[at + 1];
  return !EMBEDDED_QUESTION.includes(next?.text ?? "");
}

/**
 * Whether the subject at `subject` is stated rather than asked about: no verb, wh-word, "if" or
 * preposition just before it ("can I …", "what should I …", "the bus to my office"), nor before
 * the first of two joined subjects ("Should my wife and I …").
 */
function isStatedSubject(terms: readonly Term[], subject: number): boolean {
  let first = subject;
  if (JOINING.includes(terms[first - 1]?.text ?? "")) {
    first -= 1;
    while (first > 0 && has(terms[first - 1], "Noun", "Possessive", "Adjective") && !has(terms[first - 1], "Verb")) first--;
  }
  const before = terms[first - 1];
  if (before === undefined || before.post.includes(",")) return true;
  const word = before.text;
  if (SUPPOSING.includes(word) || (PREPOSITIONS.includes(word) && FIRST_PERSON_POSSESSIVE.includes(terms[subject]?.text ?? "")))
    return false;
  return !has(before, "Verb", "QuestionWord");
}

/**
 * Whether a question states something of its speaker: a clause in it has the speaker ("I", "we")
 * or something of theirs ("my kettle") as a stated subject (not inverted after an auxiliary, a
 * wh-word, "if" or a preposition) before a verb with a tense that does not weigh a choice ("I
 * should …") or open an embedded question ("I was wondering if …").
 *
 * @example
 * statesInQuestion("Now that we have sold the car, how do we get around?"); // true
 * statesInQuestion("Should we sell the car?"); // false
 */
export function statesInQuestion(sentence: string): boolean {
  if (!STATING_WORD.test(sentence)) return false;
  const terms = termsOf(sentence);
  return terms.some((term, index) => {
    if (!FIRST_PERSON_SUBJECT.test(term.text) && !FIRST_PERSON_POSSESSIVE.includes(term.text)) return false;
    const end = subjectEnd(terms, index);
    return end > 0 && isStatedSubject(terms, index) && statesAfter(terms, index, end);
  });
}
