import nlp from "compromise";
import { afterComma, asksOrRequests, BE_FORMS, has, headIndex, OPENING_ADVERBS, type Term, termsOf } from "./clause-openings.js";

/**
 * Statements said without a subject ("Moved to Leeds in August.", "Been running since the spring."):
 * in talk, a clause that opens on a verb in the past tense, a gerund or "been", with no subject
 * before it, is said of the speaker. A bare verb in its base form is a request ("Write a haiku."),
 * and is not one. Grammar only: the verb forms come from compromise's tagger and lexicon.
 */

/**
 * Past forms not spelt "-ed" ("ran", "sold", "left", "been"): the single words compromise's lexicon
 * tags PastTense or Participle, and the irregular past forms of its conjugation model, less those
 * spelt as their base form ("put", "quit"), which read as requests. Read once.
 */
const IRREGULAR_PAST_FORMS: ReadonlySet<string> = (() => {
  // compromise types its model as `object`; these are the two parts of it read here.
  const model = nlp.model() as {
    one: { lexicon: Record<string, string | string[]> };
    two: { models: Record<"toPast" | "toParticiple", { ex: Record<string, string> }> };
  };
  const lexicon = model.one.lexicon;
  const tagged = Object.entries(lexicon)
    .filter(([, tags]) => (Array.isArray(tags) ? tags : [tags]).some((tag) => tag === "PastTense" || tag === "Participle"))
    .map(([word]) => word);
  const conjugations = model.two.models;
  const irregular = [conjugations.toPast.ex, conjugations.toParticiple.ex].flatMap((forms) =>
    Object.entries(forms)
      .filter(([base, past]) => past !== base)
      .map(([, past]) => past),
  );
  return new Set([...tagged, ...irregular].filter((word) => /^[a-z]+$/.test(word) && !word.endsWith("ed")));
})();

const ADVERB = `(?:[a-z]+ly|${OPENING_ADVERBS.join("|")})`;
const VERB_FORM = `(?:[a-z]+ed|[a-z]+ing|${[...IRREGULAR_PAST_FORMS].join("|")})`;

/**
 * Where a clause begins: the text's start, a sentence's end, a semicolon, a colon or a line break,
 * then spaces and the marks a list item or a quotation opens with.
 */
const CLAUSE_START = `(?:^|[.!?;:\\n])[\\s\\-*•"'“‘(]*`;

/** The openings `opensWithoutSubject` reads further: adverbs or none, then a word that may be a past form or a gerund. */
const OPENING = new RegExp(`${CLAUSE_START}(?=(?:${ADVERB}\\s+)*${VERB_FORM}\\b)`, "gi");
const CLAUSE_END = /[.!?;]/;
/** The most clauses of a sentence read with the tagger: a sentence of a hundred clauses joined by semicolons is a pasted list. */
const MAX_CLAUSES_READ = 6;

/** Words that open a clause inside a sentence (a closed class): a verb after one is that clause's. */
const SUBORDINATORS = "while because when whenever although though until unless if that which who where since as".split(" ");

/** A finite verb, strictly (a base form may follow "to"): a gerund with one after it is that verb's subject ("Baking bread takes patience."). */
const isFiniteVerb = (term: Term) =>
  has(term, "Copula", "Modal", "PastTense") || (has(term, "PresentTense") && !has(term, "Gerund", "Infinitive", "Imperative"));

/** Words that stand for what was just said, not for anything named: "Got it.", "Been there." */
const pointsBack = (term: Term) => has(term, "Pronoun", "Determiner") || term.text === "there";

/**
 * Whether one clause is said of its speaker without a subject: it opens (after adverbs of time) on
 * a verb tagged as a past form, a gerund or "been", with something of its own after it. Not:
 * - a request or a phrase leading into one ("Drawing on the notes above, draft a reply.");
 * - a past form a form of "be" follows ("Attached below is …" names a thing);
 * - a verb form alone before a comma ("Understood, …"), or with only words that point back
 *   ("Got it.", "Been there.");
 * - a gerund with a finite verb after it, before any comma or clause of its own ("while …"): the
 *   subject of that verb.
 * A past form before a comma and a clause with a subject of its own is read as the speaker's: in
 * talk it is one ("Moved to Tamale in March, the rent is brutal."), though in written prose it
 * modifies that subject ("Located near the harbour, the hostel …"). Missing the user's statement
 * costs the window the newest state; reading a pasted text as theirs costs it only when the text
 * is near the question.
 */
function clauseOpensWithoutSubject(clause: string): boolean {
  const terms = termsOf(clause);
  const first = headIndex(terms, { markers: false });
  const verb = terms[first];
  if (!verb || asksOrRequests(terms, first) || !has(verb, "Verb")) return false;
  const been = verb.text === "been";
  if (!has(verb, "PastTense", "Participle", "Gerund") && !IRREGULAR_PAST_FORMS.has(verb.text)) return false;
  if (!been && terms.slice(first + 1, first + 3).some((term) => BE_FORMS.includes(term.text))) return false;
  const next = afterComma(terms, first);
  const phrase = terms.slice(first + 1, next < 0 ? terms.length : next);
  if (verb.post.includes(",") || phrase.every(pointsBack)) return false;
  const subordinate = phrase.findIndex((term) => SUBORDINATORS.includes(term.text));
  return !(has(verb, "Gerund") && (subordinate < 0 ? phrase : phrase.slice(0, subordinate)).some(isFiniteVerb));
}

/**
 * Whether a sentence says something of its speaker without naming them: one of its clauses opens
 * on a past form, a gerund or "been" with no subject before it.
 *
 * @example
 * opensWithoutSubject("Sold the caravan in the spring."); // true
 * opensWithoutSubject("Sell the caravan in the spring."); // false: a request
 */
export function opensWithoutSubject(sentence: string): boolean {
  return [...sentence.matchAll(OPENING)].slice(0, MAX_CLAUSES_READ).some((match) => {
    const start = match.index + match[0].length;
    const rest = sentence.slice(start);
    const end = rest.search(CLAUSE_END);
    return clauseOpensWithoutSubject(end < 0 ? rest : rest.slice(0, end + 1));
  });
}
