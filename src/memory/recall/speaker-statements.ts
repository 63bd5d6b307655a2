import { inFirstPerson } from "../../vocabulary/first-person.js";
import { asksOrRequests, FORMULAE, has, hasTense, headIndex, termsOf } from "./clause-openings.js";
import { isQuestion, splitQuestion } from "./question-clauses.js";
import { STATING_WORD, statesInQuestion } from "./question-statements.js";
import { opensWithoutSubject } from "./subjectless-statements.js";

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * The most sentences of a turn read with the tagger: a pasted document is read by its first ones
 * (the pronoun tests below read every sentence).
 */
const MAX_TAGGED_SENTENCES = 12;

/** The pronouns of someone the speaker speaks of (a closed class; "it", "they" and "you" name things, groups or the listener as often). */
const THIRD_PERSON = /\b(?:he|him|his|she|her|hers)\b/i;

/**
 * Whether a turn says something of its speaker: one of its sentences, not a question, speaks in
 * the first person, or says it without a subject ("Moved to Leeds in August.",
 * `opensWithoutSubject`); or, read `inQuestions`, one of its questions states it on the way
 * ("Now that we have sold the car, how do we get around?", `statesInQuestion`). A turn that only
 * asks ("Can you give examples?") or requests ("Write a haiku.") states nothing that is, or stops
 * being, true of them.
 *
 * @example
 * saysSomethingOfSpeaker("My garlic is sprouting already!"); // true
 * saysSomethingOfSpeaker("Planted the garlic in October."); // true
 * saysSomethingOfSpeaker("Is it too late to plant garlic?"); // false
 */
export function saysSomethingOfSpeaker(text: string, reading: StatementReading = PLAIN_READING): boolean {
  return speaksOfSpeaker(sentencesOf(text), reading);
}

/** How a turn's questions are read: with `inQuestions`, a question may state something of its speaker (CONTEXT_QUESTION_STATEMENTS). */
export interface StatementReading {
  inQuestions: boolean;
}

/** Questions state nothing: the default (CONTEXT_QUESTION_STATEMENTS is off). */
export const PLAIN_READING: StatementReading = { inQuestions: false };

/** `saysSomethingOfSpeaker` of a turn's sentences, segmented once by the caller. */
function speaksOfSpeaker(sentences: readonly string[], reading: StatementReading): boolean {
  const statements = sentences.filter((sentence) => !isQuestion(sentence));
  const allCapitals = !sentences.some((sentence) => /\p{Ll}/u.test(sentence));
  if (statements.some((sentence) => inFirstPerson(sentence, allCapitals))) return true;
  if (statements.slice(0, MAX_TAGGED_SENTENCES).some(opensWithoutSubject)) return true;
  if (!reading.inQuestions) return false;
  const questions = sentences.filter((sentence) => isQuestion(sentence) && STATING_WORD.test(sentence));
  return questions.slice(0, MAX_TAGGED_SENTENCES).some(statesInQuestion);
}

/** Statements of a state have a subject, a verb and what they say of it: "Sounds good." states nothing. */
const LEAST_STATEMENT_WORDS = 3;

/**
 * A speaker's name or role before a turn ("user: …", "Ama Owusu: …"), as stored turns and some
 * imports write it: one to three words, not the sentence's subject.
 */
const SPEAKER_PREFIX = /^\s*\p{L}[\p{L}\p{N}'-]*(?: \p{L}[\p{L}\p{N}'-]*){0,2}:\s+/u;

/**
 * Whether a turn states something, of anyone or anything: it says something of its speaker
 * (`saysSomethingOfSpeaker`), or one of its sentences, not a question, speaks of someone as "her"
 * or "him", or is a plain statement (`isPlainStatement`). What the user said later of a statement
 * may be said of the user ("I sold it", "Sold it in May."), of someone by name or pronoun ("Kofi
 * took the boat over") or of a thing ("The boat went to a club in May.").
 *
 * @example
 * statesSomething("The boat went to a rowing club in May."); // true
 * statesSomething("Tell me about rowing clubs."); // false
 */
export function statesSomething(text: string, reading: StatementReading = PLAIN_READING): boolean {
  const sentences = sentencesOf(text);
  if (speaksOfSpeaker(sentences, reading)) return true;
  const statements = sentences.filter((sentence) => !isQuestion(sentence));
  if (statements.some((sentence) => THIRD_PERSON.test(sentence))) return true;
  return statements.slice(0, MAX_TAGGED_SENTENCES).some((sentence) => coordinatedClauses(sentence).some(isPlainStatement));
}

/** The most coordinated clauses of one sentence read as statements of their own: each runs the tagger. */
const MAX_COORDINATED_CLAUSES = 4;

/** Where two coordinated clauses meet: a semicolon, or a comma before "and", "but" or "so" (a closed class). */
const COORDINATION = /;\s+|,\s+(?:and|but|so)\s+/i;

/**
 * A sentence's coordinated clauses, each a statement with a subject of its own or none: "The
 * office moved us all last month, and the commute is short now" states the commute whatever its
 * first clause's subject is. A clause that shares the first one's subject ("…, and bought a van")
 * opens on its verb, which no plain statement does.
 */
const coordinatedClauses = (sentence: string) => sentence.split(COORDINATION, MAX_COORDINATED_CLAUSES);

/**
 * Whether a sentence is a plain statement: a clause with a verb that has a tense, three words or
 * more, that neither asks nor requests (`asksOrRequests`), is not a social formula ("Thanks, …"),
 * does not open on its verb ("Sounds great.", "Makes sense."), and names its subject rather than
 * pointing back at the talk: not "it", "they", "you", or a demonstrative before a verb ("It means a
 * lot", "That sounds lovely"). One word and a comma before it ("Mel, that …") is not its subject.
 */
function isPlainStatement(sentence: string): boolean {
  const terms = termsOf(sentence);
  let head = headIndex(terms, { markers: true });
  if (FORMULAE.includes(terms[head]?.text ?? "")) return false;
  // One word and a comma (a name, "Kwame, …", or an adverb, "Sadly, …") is no subject.
  if (terms[head]?.post.includes(",")) head += 1 + headIndex(terms.slice(head + 1), { markers: true });
  const subject = terms[head];
  if (subject === undefined || terms.length - head < LEAST_STATEMENT_WORDS) return false;
  if (asksOrRequests(terms, head) || has(subject, "Verb")) return false;
  if (has(subject, "Pronoun") && !has(subject, "Possessive")) return false;
  if (has(subject, "Determiner") && (subject.text.endsWith("'s") || has(terms[head + 1], "Verb"))) return false;
  return terms.slice(head + 1).some((term, index) => hasTense(term) && terms[head + index]?.text !== "to");
}

/**
 * The sentences of `text`, without a speaker's name or role before them (which the tagger would
 * read as their first word); words of the speaker's own before a colon ("My plan: …") stay. A
 * question with a statement typed inside it is two sentences (`splitQuestion`).
 */
const sentencesOf = (text: string) => {
  const prefix = SPEAKER_PREFIX.exec(text)?.[0];
  const said = prefix === undefined || inFirstPerson(prefix) ? text : text.slice(prefix.length);
  const sentences = [...SENTENCES.segment(said)].flatMap(({ segment }) => splitAtLowercaseStarts(segment));
  // Splitting a question may run the tagger: a pasted document's are read by its first ones.
  return sentences.flatMap((sentence, index) => (index < MAX_TAGGED_SENTENCES ? splitQuestion(sentence) : [sentence]));
};

/**
 * Abbreviations a full stop ends without ending the sentence (a closed class): "Can I use approx.
 * two cups?" is one question, as is "Is a canoe vs. a kayak better?". "No." ends no sentence
 * either, at the price of missing a break after an answer of "no".
 */
const ABBREVIATIONS = new Set(
  "approx etc vs no nos incl excl eg ie cf al mr mrs ms dr st jr sr prof co inc ltd dept est min max fig vol ca ft oz lb lbs kg km hr hrs mins sec".split(
    " ",
  ),
);

/**
 * A full stop after a word of two letters or digits or more (not one with a stop inside, "e.g."),
 * any closing quote or bracket, and the space before a lowercase letter. Bounded, so that a long
 * run of quotes cannot make the match slow.
 */
const STOP_BEFORE_LOWERCASE = /(?<=(?:^|[^\p{L}\p{N}.'’])([\p{L}\p{N}'’]{2,40})\.["'”’)]{0,3})\s+(?=\p{Ll})/gu;

/**
 * A segment split where a sentence typed without its capital begins. The segmenter breaks after
 * "?" or "!" before a lowercase letter, but after a full stop only before a capital, so that
 * "approx. two" stays one sentence; people typing to an assistant often write "sold the van. any
 * tips for …?", which would otherwise read as one question and state nothing. After a word of the
 * closed class of abbreviations the stop ends nothing.
 */
function splitAtLowercaseStarts(segment: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const match of segment.matchAll(STOP_BEFORE_LOWERCASE)) {
    if (ABBREVIATIONS.has((match[1] ?? "").toLowerCase().replace(/['’]/g, ""))) continue;
    parts.push(segment.slice(start, match.index));
    start = match.index + match[0].length;
  }
  parts.push(segment.slice(start));
  return parts;
}
