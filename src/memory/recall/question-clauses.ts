import { AUXILIARIES, has, hasTense, termsOf, WH_WORDS } from "./clause-openings.js";
import { weighs } from "./question-statements.js";

/**
 * Statements typed inside a question: "The boiler is twelve years old, is it worth servicing?"
 * states the boiler's age on the way to asking, as surely as two sentences would, and people
 * type it so as often. Such a question is split into the sentences it would have been with a full
 * stop, so that every statement reader reads the clause. Grammar only: closed word classes and
 * compromise's tags.
 */

/** Words that open a question after a comma ("…, how do I …?", "…, is it …?", "…, any tips …?"): wh-words, auxiliaries, "any" (closed classes). */
const QUESTION_OPENERS = [...WH_WORDS, ...AUXILIARIES, "any", "anyone", "anybody", "anything"];

/** Words that may open a clause before what it says ("So …", "Okay, …"): skipped to find its first word. */
const LEADING_MARKERS = "so and but ok okay well oh hey hi also".split(" ");

/**
 * Words and phrases that open a clause supposing rather than stating ("If we move, …", "Even
 * if …", "In case …", "As long as …"), after any leading markers: a closed class.
 */
const SUPPOSING_OPENING =
  /^(?:(?:so|and|but|ok|okay|well|oh|also|even|only|just)[\s,]+)*(?:if|unless|whether|when|whenever|once|before|until|till|while|suppose|supposing|assuming|provided|providing|say|in case|as long as|as soon as)\b/;

/**
 * Words of asking and knowing (a closed class): a clause ending on one takes the question after
 * the comma as its complement ("I was wondering, could you …?", "I'm curious, which …?", "I have
 * a question, …"), as "I was wondering if …" does, and states nothing of its own.
 */
const ASKING_WORDS = "wonder wondering wondered curious ask asking question questions know sure unsure confused think thinking".split(" ");

/** The most commas looked at in one question, and the characters read after each: a pasted list of commas costs no more than a short question. */
const MAX_COMMAS = 8;
const MAX_OPENING = 60;

/** The first word of `text` after leading markers, from its first characters, in lower case without an apostrophe's suffix ("what's" → "what"). */
function firstWord(text: string): string {
  const opening = text.slice(0, MAX_OPENING).toLowerCase();
  const words = opening.match(/[\p{L}']+/gu) ?? [];
  const word = words.find((candidate) => !LEADING_MARKERS.includes(candidate)) ?? "";
  return word.replace(/'.*$/, "");
}

/**
 * Whether the clause before a question states something when read as a sentence of its own: it
 * neither asks ("Can I …, and how …?"), nor supposes ("If we move, …"), nor weighs a choice ("We
 * might move, …"), nor ends on a word of asking ("I was wondering, …"), and it has a verb with a
 * tense ("About my lease, …" has none).
 */
function statesBeforeQuestion(clause: string): boolean {
  if (QUESTION_OPENERS.includes(firstWord(clause))) return false;
  if (SUPPOSING_OPENING.test(clause.slice(0, MAX_OPENING).toLowerCase().trimStart())) return false;
  const terms = termsOf(clause);
  const last = terms.findLast((term) => !has(term, "Adverb"));
  if (ASKING_WORDS.includes(last?.text ?? "")) return false;
  if (terms.some((term, index) => weighs(term, terms[index - 1]))) return false;
  return terms.some(hasTense);
}

/**
 * A question split where a statement inside it ends or begins: the clause before the first comma
 * whose next word opens a question, read as a sentence of its own when it states
 * (`statesBeforeQuestion`); failing that, the reason the question gives after a comma
 * (`splitBeforeReason`). Any other sentence is returned whole.
 *
 * @example
 * splitQuestion("The boiler is twelve years old, is it worth servicing?");
 * // ["The boiler is twelve years old", "is it worth servicing?"]
 */
export function splitQuestion(sentence: string): string[] {
  if (!isQuestion(sentence)) return [sentence];
  let commas = 0;
  for (const comma of sentence.matchAll(/,\s*/g)) {
    if (++commas > MAX_COMMAS) break;
    const rest = sentence.slice(comma.index + comma[0].length);
    if (!QUESTION_OPENERS.includes(firstWord(rest))) continue;
    const before = sentence.slice(0, comma.index);
    return statesBeforeQuestion(before) ? [before, rest] : [sentence];
  }
  return splitBeforeReason(sentence);
}

/**
 * Words that open a clause giving a question's reason, which they state as true (a closed class).
 * "As" only before the speaker or a determiner ("…, as my bike was stolen?"), not in "as long as"
 * or "as a chef".
 */
const REASON_AFTER_COMMA = /,\s+(?=(?:now that|since|because|given that|as(?=\s+(?:i|we|my|our|the|it)\s))\s)/i;

/**
 * A question split before the clause that gives its reason: "Which bus goes to town, now that my
 * bike has been stolen?" states the theft as surely as a sentence of its own would. The clause
 * is read without the question mark, when it has a verb with a tense.
 */
function splitBeforeReason(question: string): string[] {
  const comma = REASON_AFTER_COMMA.exec(question);
  if (!comma) return [question];
  const reason = question.slice(comma.index + comma[0].length).replace(/\?["'”’)]*\s*$/, "");
  return termsOf(reason).some(hasTense) ? [`${question.slice(0, comma.index)}?`, reason] : [question];
}

/** Whether a sentence ends with a question mark. */
export const isQuestion = (sentence: string) => /\?["'”’)]*\s*$/.test(sentence);
