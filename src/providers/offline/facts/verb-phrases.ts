import nlp from "compromise";

/** Tense and aspect of a verb as compromise parses its auxiliaries. */
export type Tense = "past" | "present" | "future";
export type Aspect = "simple" | "progressive" | "perfect";

/** A verb of a clause as compromise parses it, with what stands before and after it. */
export interface VerbPhrase {
  /** The infinitive, particle and gerund included: "stopped smoking" → "stop smoking", "passed away" → "pass away". */
  lemma: string;
  /** The lemma's first word: "stop", "pass", "give". */
  head: string;
  text: string;
  tense: Tense;
  aspect: Aspect;
  /** A modal auxiliary (would, could, should, might, must): not a statement of fact. */
  modal: boolean;
  /** Negated ("do not drink"): its scope is this verb and what it governs. */
  negative: boolean;
  /** Said to be over: "no longer work", or negated with "any more" / "anymore" after it. */
  noLonger: boolean;
  /** "used to go": a past habit. */
  usedTo: boolean;
  /** The clause before the verb ("I finally"), and after it ("the habit and…"). */
  before: string;
  after: string;
}

interface VerbJson {
  text: string;
  offset: { start: number; length: number };
  verb: { infinitive?: string; negative?: boolean; auxiliary?: string; grammar?: { form?: string; tense?: string; progressive?: boolean } };
}

/**
 * The verbs of one clause (contractions already expanded) in order, each with its lemma, tense,
 * aspect, modality and negation, and the text around it. Negation is scoped to the verb that
 * carries it: "I do not think I will quit" negates "think", not "quit".
 *
 * @example
 * verbPhrases("I am moving to Leiden")[0]; // { lemma: "move", tense: "present", aspect: "progressive", … }
 */
export function verbPhrases(clause: string): VerbPhrase[] {
  const verbs = nlp(clause).verbs().json({ offset: true }) as VerbJson[];
  return verbs.map((verb) => {
    const { start } = verb.offset;
    let { length } = verb.offset;
    // Do-support the tagger leaves apart ("do not | like olives"): the verb is the word after "do not".
    const supported = /^(?:do|does|did) not$/i.test(clause.slice(start, start + length))
      ? /^\s+(\p{L}+)/u.exec(clause.slice(start + length))
      : null;
    if (supported) length += supported[0].length;
    const before = clause.slice(0, start).trim();
    const text = clause.slice(start, start + length);
    const after = clause.slice(start + length).trim();
    const lemma = (supported ? (supported[1] as string) : (verb.verb.infinitive ?? text))
      .toLowerCase()
      .replace(/^to\s+/, "")
      .replace(/^had to\s+/, "")
      .replace(/[^\p{L}\s'-]/gu, "")
      .trim();
    const form = verb.verb.grammar?.form ?? "";
    const auxiliary = verb.verb.auxiliary ?? "";
    const usedTo = /\bused to\b/i.test(auxiliary) || /\bused to$/i.test(before);
    const future = /future/.test(form) || /\b(?:will|shall|going to)\b/i.test(auxiliary);
    return {
      lemma,
      head: lemma.split(/\s+/)[0] ?? lemma,
      text,
      tense: future ? "future" : usedTo || /past/.test(form) || verb.verb.grammar?.tense === "PastTense" ? "past" : "present",
      aspect: /progressive/.test(form) || verb.verb.grammar?.progressive ? "progressive" : /perfect/.test(form) ? "perfect" : "simple",
      // "can" is ability, a fact ("I can't stand jazz"); the others are possibility, advice or duty.
      modal: /\b(?:would|could|should|might|must|may)\b/i.test(auxiliary) || (/modal/.test(form) && !/\bcan\b/i.test(auxiliary)),
      negative: verb.verb.negative === true,
      noLonger:
        /\bno longer\b/i.test(`${before.split(/\s+/).slice(-2).join(" ")} ${text}`) ||
        (verb.verb.negative === true && ANY_MORE.test(`${text} ${after}`)),
      usedTo,
      before,
      after,
    };
  });
}

/** "any more", "anymore": after a negated verb, it says the thing stopped rather than never was. */
const ANY_MORE = /\bany ?more\b/i;

/** Words that may stand between the subject and its verb: "I finally", "we just", "I have also". */
const BETWEEN =
  /(?:\s+(?:finally|just|recently|already|also|officially|completely|totally|actually|eventually|basically|have|had|has|all|both|really|then|now|still|since|no longer|never|always|usually|normally|often|sometimes|rarely))*$/i;
/** Discourse words that open a clause without being its subject: "Well,", "Honestly", "Last year". */
const LEADING =
  /^(?:(?:and|but|so|then|now|well|yeah|yes|ok|okay|oh|also|plus|anyway|honestly|actually|sadly|finally|recently|last \w+|\w+ (?:days|weeks|months|years) ago)[,!:]?\s+)+/i;

/**
 * Whether the user is the subject of a verb whose clause-before is `before`: it ends with "I" or
 * "we" ("Three months ago I finally", "Sam and I"). A clause that opens with a verb in the past has
 * had its dropped "I" put back (clauses.ts); one that opens in the present is an imperative.
 */
export function saidOfUser(before: string): boolean {
  const stripped = before
    .replace(/^.*(?:\s[—–-]|;)\s*$/, "")
    .replace(LEADING, "")
    .trim();
  return stripped !== "" && new RegExp(`(?:^|\\s)(?:I|we)${BETWEEN.source}`, "i").test(stripped);
}

/** Whether a verb states something that holds or has happened: not modal, not future, not "used to". */
export const asserts = (verb: VerbPhrase) => !verb.modal && verb.tense !== "future" && !verb.usedTo;

/** Whether a verb of change ("move", "quit", "sell") says the change is done: not in progress, not to come. */
export const completed = (verb: VerbPhrase) => asserts(verb) && verb.aspect !== "progressive";
