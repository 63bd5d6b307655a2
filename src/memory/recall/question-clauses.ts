import { AUXILIARIES, BE_FORMS, DISCOURSE_MARKERS, FORMULAE, HAVE_FORMS, has, hasTense, termsOf, WH_WORDS } from "./clause-openings.js";
import { PREPOSITIONS, SUPPOSING, weighs } from "./question-statements.js";

/**
 * Statements typed inside a question: "The boiler is twelve years old, is it worth servicing?"
 * states the boiler's age on the way to asking, as surely as two sentences would, and people
 * type it so as often. Such a question is split into the sentences it would have been with a full
 * stop, so that every statement reader reads the clause. Grammar only: closed word classes and
 * compromise's tags. What is split must state on its own: a clause that supposes, asks, weighs a
 * choice or talks about the talk is left inside its question, which states nothing.
 */

/** Words that open a question after a clause break ("…, how do I …?", "… - is it …?", "…, any tips …?"): wh-words, auxiliaries, "any" (closed classes). */
const QUESTION_OPENERS = [...WH_WORDS, ...AUXILIARIES, "any", "anyone", "anybody", "anything"];

/** Words skipped to find a clause's first word: discourse markers ("So …", "Hey, …") and focusing adverbs ("even if", "only when"). */
const SKIPPED = [...DISCOURSE_MARKERS, "also", "even", "only", "just"];

/**
 * Words that open a clause supposing rather than stating ("If we move, …", "Imagine I lost my
 * job, …"): the subordinators of condition and verbs of supposing (a closed class).
 */
const SUPPOSING_WORDS = [...SUPPOSING, ..."assuming provided providing say imagine pretend hypothetically".split(" ")];

/**
 * Subordinators of time (a closed class): their clause supposes a time to come in the present
 * tense ("When I retire, …", "After I move, …") and states one that happened in the past ("After
 * we moved to Bristol, …", "While I was in Paris, …").
 */
const TIME_WORDS = "when whenever once before after until till while".split(" ");

/** Phrases of two or three words that open a supposing clause ("In case we move, …", "As long as I pay, …"): a closed class. */
const SUPPOSING_PHRASES = ["in case", "as long as", "in the event", "let's say", "lets say", "worst case"];

/** Phrases that open a clause of time, read by its tense as `TIME_WORDS` are ("By the time we arrived, …" states, "By the time I retire, …" supposes). */
const TIME_PHRASES = ["by the time", "as soon as"];

/**
 * Words of wondering and being unsure (a closed class): a clause holding one is a preamble that
 * takes the question after it as its subject matter ("I was wondering about something, …", "I
 * have a question about my lease, …", "I'm curious about the new tram line, …").
 */
const WONDERING_WORDS = new Set("wonder wondering wondered curious question questions unsure confused".split(" "));

/**
 * Words of knowing, thinking and deciding that end a preamble ("I'm not sure, …", "I don't know,
 * …", "I can't decide, …") but head a statement when something follows them ("I think I left my
 * keys at the gym, …", "We decided to sell the van, …"): a closed class, read at the clause's end.
 */
const PREAMBLE_ENDINGS = new Set("know sure think thinking guess mean understand decide torn".split(" "));

/**
 * Verbs of saying and asking (a closed class). What someone told the user is often what is true
 * of them ("My doctor told me I have …", "My landlord says I owe …"), so one makes a
 * clause talk about the talk only where the listener is its subject ("You said earlier …") or
 * where it ends the clause ("My boss asked me, …", "…, as I said?").
 */
const SAYING_WORDS = new Set("say says said saying tell tells told ask asks asking asked mention mentions mentioned".split(" "));

/** Objects that may follow a verb of saying at a clause's end ("asked me", "told us"). */
const SAID_TO = ["me", "us", "him", "her", "them"];

/** Whether a clause (its `words`, and those from its first after markers) talks about the talk through a verb of saying. */
function reportsTalk(words: readonly string[], opening: readonly string[]): boolean {
  if (opening[0] === "you" && opening.slice(1, 3).some((word) => SAYING_WORDS.has(word))) return true;
  const last = SAID_TO.includes(words.at(-1) ?? "") ? words.at(-2) : words.at(-1);
  return SAYING_WORDS.has(last ?? "");
}

/**
 * Openings that present pasted or quoted matter ("Here's my code, …", "Below is …", "The
 * following …"), or a formula that is not an interjection before a comma ("Thanks for …, …";
 * "Thanks, I switched banks, …" states).
 */
const PRESENTATION = /^(?:here(?:'s|’s|\s+is|\s+are)|attached|below\s+(?:is|are)|the\s+following)\b/i;

/**
 * The most clause breaks looked at in one question, and the characters read of a clause: a pasted
 * list of commas or dashes costs no more than a short question.
 */
const MAX_CLAUSE_BREAKS = 8;
const MAX_OPENING = 60;
const MAX_CLAUSE = 240;

/**
 * A word of a clause, in lower case with a contraction's negation undone ("isn't" → "is", "can't"
 * → "can"), and whether a clause break follows it ("Sorry, …", "Sorry - …": `CLAUSE_BREAK`).
 */
interface Word {
  text: string;
  breakAfter: boolean;
}

/** A clause break right after a word, as `readWords` reads it: a comma, an ellipsis, a dash between spaces, an en or em dash. */
const BREAK_AFTER_WORD = /\s*(?:,|\.{3}|…|[–—]|-{1,2})$/;

/** The words of `text` (its first `length` characters). */
function readWords(text: string, length: number): Word[] {
  const tokens =
    text
      .slice(0, length)
      .toLowerCase()
      .replace(/’/g, "'")
      .match(/[\p{L}']+(?:\s*(?:,|\.{3}|…|[–—])|\s+-{1,2}(?=\s))?/gu) ?? [];
  return tokens.map((token) => {
    const word = token.replace(BREAK_AFTER_WORD, "");
    const text = word === "can't" ? "can" : word === "won't" ? "will" : word.replace(/n't$/, "");
    return { text, breakAfter: word !== token };
  });
}

/** The words of `text` (its first `length` characters), without their clause breaks. */
const wordsOf = (text: string, length: number) => readWords(text, length).map((word) => word.text);

/**
 * Whether the word at `index` is passed over to find a clause's first: a marker; an interjection
 * or an adverb in "-ly" before a comma ("Sorry, …", "Realistically, …"); or an adverb in "-ly"
 * before a word of supposing ("So basically if …"). A name in "-ly" opening a clause ("Emily is
 * …") is not passed over.
 */
function skipped(words: readonly Word[], index: number): boolean {
  const word = words[index];
  if (word === undefined) return false;
  if (SKIPPED.includes(word.text)) return true;
  if (word.breakAfter && (FORMULAE.includes(word.text) || word.text.endsWith("ly"))) return true;
  const next = words[index + 1]?.text ?? "";
  return word.text.endsWith("ly") && !SUPPOSING_WORDS.includes(word.text) && (SUPPOSING_WORDS.includes(next) || skipped(words, index + 1));
}

/** The words of a clause from its first that is not skipped ("Hey, if …" → ["if", …]). */
function fromFirstWord(text: string, length = MAX_OPENING): string[] {
  const words = readWords(text, length);
  let first = 0;
  while (first < words.length && skipped(words, first)) first++;
  return words.slice(first).map((word) => word.text);
}

/** The first word of a clause after markers, without an apostrophe's suffix ("what's" → "what"). */
const firstWord = (text: string) => (fromFirstWord(text)[0] ?? "").replace(/'.*$/, "");

/**
 * Whether a clause of time tells of what happened: its first verb is in the past tense ("After we
 * moved, …", "By the time we'd left, …"), not in the present or the present perfect ("When I get
 * home from the trip I booked, …", "After I've finished the course, …": a time to come).
 */
function happened(clause: string): boolean {
  const terms = termsOf(clause);
  const at = terms.findIndex((term) => has(term, "Verb"));
  const verb = terms[at];
  if (verb === undefined) return false;
  // A contraction's auxiliary has no text of its own: "we'd" + "" is "had", "I've" + "" is "have".
  const contracted = verb.text === "" ? (/'(d|ve)$/.exec(terms[at - 1]?.text ?? "")?.[1] ?? "") : "";
  if (contracted !== "") return contracted === "d";
  return has(verb, "PastTense") && !["have", "has"].includes(verb.text);
}

/** The most parts of a clause (between clause breaks) read for a supposing opening: each may run the tagger. */
const MAX_PARTS = 4;

/** Whether a clause, or a part of it between clause breaks, opens supposing ("Quick question, if I cancel …", "… – if we move out early – …"). */
function supposes(clause: string): boolean {
  return clause
    .slice(0, MAX_CLAUSE)
    .split(CLAUSE_BREAK, MAX_PARTS)
    .some((part) => {
      const opening = fromFirstWord(part);
      const start = `${opening.slice(0, 3).join(" ")} `;
      const opens = (phrase: string) => start.startsWith(`${phrase} `);
      if (TIME_WORDS.includes(opening[0] ?? "") || TIME_PHRASES.some(opens)) return !happened(part);
      return SUPPOSING_WORDS.includes(opening[0] ?? "") || SUPPOSING_PHRASES.some(opens);
    });
}

/**
 * Whether a clause states something on its own, as it would typed with a full stop: it does not
 * suppose, present or greet, talk about the talk (`WONDERING_WORDS`, `PREAMBLE_ENDINGS`,
 * `reportsTalk`: "You said …", "…, as I said?"), quote (a colon before a space, or a double
 * quote), weigh a choice with a modal (the question reading's own test, "We might move, …") or
 * end on "be", and it has two words or more and a verb with a tense.
 */
function statesOnItsOwn(clause: string): boolean {
  const head = clause.slice(0, MAX_CLAUSE);
  if (/:\s|["“”]/.test(head) || supposes(head)) return false;
  const opening = fromFirstWord(head);
  if (PRESENTATION.test(opening.join(" ")) || FORMULAE.includes(opening[0] ?? "")) return false;
  const words = wordsOf(head, MAX_CLAUSE);
  if (words.length < 2 || words.some((word) => WONDERING_WORDS.has(word)) || reportsTalk(words, opening)) return false;
  // A clause ending on "be" has the question as its complement: "The thing is, …", "My question is, …".
  const last = words.at(-1) ?? "";
  if (PREAMBLE_ENDINGS.has(last) || BE_FORMS.includes(last)) return false;
  const terms = termsOf(head);
  if (terms.some((term, index) => weighs(term, terms[index - 1]))) return false;
  return terms.some(hasTense);
}

/**
 * Whether a clause opens a question itself ("Can I …, and how …?"): on a question opener, a
 * form of "have" before its subject or a preposition before a wh-word, but not on "when" before
 * its subject, which opens a clause of time ("When I was in Paris, …").
 */
function asksItself(clause: string): boolean {
  const [first = "", next = ""] = fromFirstWord(clause).map((word) => word.replace(/'.*$/, ""));
  if (TIME_WORDS.includes(first)) return AUXILIARIES.includes(next);
  // "Have there been …", "Has anyone …"; "In what ways …", "For which …".
  if (HAVE_FORMS.includes(first)) return INVERTED_SUBJECTS.includes(next);
  return QUESTION_OPENERS.includes(first) || (PREPOSITIONS.includes(first) && WH_WORDS.includes(next));
}

/** The subjects that follow a form of "have" opening a question (a closed class). */
const INVERTED_SUBJECTS =
  "i you we they he she it there any anyone anybody anything my our your his her their its the this that a an".split(" ");

/** The dashes that end a clause: a hyphen or two between spaces, an en or em dash (not one between digits). */
const DASHES = String.raw`\s-{1,2}(?=\s)|\s[–—]|(?<!\d)[–—]`;

/**
 * Where a clause typed inside a question may end: a comma (not one between digits, "1,250"), an
 * ellipsis ("…at 7:45... how do I …?"), a dash between spaces, or an en or em dash with or without
 * them ("I sold the kayak – which canoe …?"). Not a hyphen inside a word ("well-known"), an en dash
 * between digits ("2019–2020"), or a dash or an ellipsis before a number ("9 -- 5").
 */
const CLAUSE_BREAK = new RegExp(String.raw`(?:,(?!\d)|(?:\.{3}|…|${DASHES})(?!\s*\d))\s*`, "g");

/** A dash, which may open an aside that another closes ("My brother—who is a chef—sold …"). */
const DASH = new RegExp(String.raw`(?:${DASHES})(?!\s*\d)`);

/**
 * A question split where a statement inside it ends or begins: the clause before the first comma,
 * ellipsis or dash (`CLAUSE_BREAK`) whose next word opens a question, read as a sentence of its
 * own when it neither asks itself ("Can I …, and how …?") nor fails `statesOnItsOwn`; past a dash
 * that another dash closes later, an aside ("My brother—who is a chef—sold his van, …?"), the
 * next break is read instead. Failing that, the reason the question gives after a comma
 * (`splitBeforeReason`). Any other sentence is returned whole.
 *
 * @example
 * splitQuestion("The boiler is twelve years old, is it worth servicing?");
 * // ["The boiler is twelve years old", "is it worth servicing?"]
 */
export function splitQuestion(sentence: string): string[] {
  if (!isQuestion(sentence)) return [sentence];
  let breaks = 0;
  for (const clauseBreak of sentence.matchAll(CLAUSE_BREAK)) {
    if (++breaks > MAX_CLAUSE_BREAKS) break;
    const rest = sentence.slice(clauseBreak.index + clauseBreak[0].length);
    if (!QUESTION_OPENERS.includes(firstWord(rest))) continue;
    const before = sentence.slice(0, clauseBreak.index);
    if (!asksItself(before) && statesOnItsOwn(before)) return [before, rest];
    if (DASH.test(clauseBreak[0]) && DASH.test(rest)) continue;
    break;
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
 * is read without the question mark, when it states on its own ("…, as I said?" talks about the
 * talk).
 */
function splitBeforeReason(question: string): string[] {
  const comma = REASON_AFTER_COMMA.exec(question);
  if (!comma) return [question];
  const reason = question.slice(comma.index + comma[0].length).replace(QUESTION_END, "");
  return statesOnItsOwn(reason.replace(/^\s*\S+(?:\s+that)?\s+/i, "")) ? [`${question.slice(0, comma.index)}?`, reason] : [question];
}

/** A question mark ending a sentence, with any closing quotes or brackets after it. */
const QUESTION_END = /\?["'”’)]*\s*$/;

/** Whether a sentence ends with a question mark. */
export const isQuestion = (sentence: string) => QUESTION_END.test(sentence);
