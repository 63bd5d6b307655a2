import { has, headIndex, isRequest, type Term, termsOf } from "./clause-openings.js";
import { opensWithoutSubject } from "./subjectless-statements.js";

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });
/** The speaker's own pronouns (a closed class): a sentence holding one says something of the speaker. */
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b/i;

/**
 * Whether a turn says something of its speaker: one of its sentences, not a question, speaks in
 * the first person, or says it without a subject ("Moved to Leeds in August.",
 * `opensWithoutSubject`). A turn that only asks ("Can you give examples?") or requests ("Write a
 * haiku.") states nothing that is, or stops being, true of them.
 *
 * @example
 * saysSomethingOfSpeaker("My garlic is sprouting already!"); // true
 * saysSomethingOfSpeaker("Planted the garlic in October."); // true
 * saysSomethingOfSpeaker("Is it too late to plant garlic?"); // false
 */
export function saysSomethingOfSpeaker(text: string): boolean {
  return sentencesOf(text).some((sentence) => !isQuestion(sentence) && (FIRST_PERSON.test(sentence) || opensWithoutSubject(sentence)));
}

/** Statements of a state have a subject, a verb and what they say of it: "Sounds good." and "Got it." state nothing. */
const LEAST_STATEMENT_WORDS = 3;

/** Words that open a social formula, not a statement ("Thanks, Mel!", "Wow, what a view!"): a closed class. */
const FORMULAE = "thanks thank sorry congrats congratulations welcome hello bye cheers wow aw ah haha lol".split(" ");

/** A speaker's name before a turn ("Mel: …"), as some imports write it: not the sentence's subject. */
const SPEAKER_PREFIX = /^\s*[\p{L}][\p{L}\p{N} .'-]{0,40}:\s+/u;

/** The pronouns of someone the speaker speaks of (a closed class; "it", "they" and "you" name things, groups or the listener as often). */
const THIRD_PERSON = /\b(?:he|him|his|she|her|hers)\b/i;

/**
 * Whether a sentence's subject points at the talk itself rather than naming what it is about: a
 * pronoun other than "he" or "she" ("It means a lot to me"), or a demonstrative ("That's lovely",
 * "This is great"), which names what was just said.
 */
function pointsAtTalk(terms: readonly Term[], head: number): boolean {
  const subject = terms[head] as Term;
  if (has(subject, "Pronoun")) return !THIRD_PERSON.test(subject.text);
  return has(subject, "Determiner") && (has(terms[head + 1], "Verb") || subject.text.endsWith("'s"));
}

/**
 * Whether a turn states something, of anyone or anything: it says something of its speaker
 * (`saysSomethingOfSpeaker`), or one of its sentences, not a question, speaks of someone as "her" or
 * "him", or is a plain statement. A plain statement is
 * neither a question nor an exclamation ("What a view!"), is not a request (its first word, after
 * adverbs and words like "okay", a verb in its base form or "please") nor a social formula
 * ("Thanks, …"), names its subject (`pointsAtTalk`), and has at least three words. What the user said later of a statement may be said
 * of the user ("I sold it", "Sold it in May."), of someone by name or pronoun ("Kofi took the boat
 * over") or of a thing ("The boat went to a club in May.").
 *
 * @example
 * statesSomething("The boat went to a rowing club in May."); // true
 * statesSomething("Tell me about rowing clubs."); // false
 */
export function statesSomething(text: string): boolean {
  return (
    saysSomethingOfSpeaker(text) ||
    sentencesOf(text.replace(SPEAKER_PREFIX, "")).some((sentence) => {
      if (isQuestion(sentence)) return false;
      if (THIRD_PERSON.test(sentence)) return true;
      if (sentence.trim().endsWith("!")) return false;
      const terms = termsOf(sentence);
      const head = headIndex(terms, { markers: true });
      const first = terms[head];
      return (
        terms.length - head >= LEAST_STATEMENT_WORDS &&
        !isRequest(first) &&
        !FORMULAE.includes(first?.text ?? "") &&
        !pointsAtTalk(terms, head)
      );
    })
  );
}

const sentencesOf = (text: string) => [...SENTENCES.segment(text)].map(({ segment }) => segment);
const isQuestion = (sentence: string) => sentence.trim().endsWith("?");
