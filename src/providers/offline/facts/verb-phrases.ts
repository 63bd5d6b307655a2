import nlp from "compromise";

/** A verb of a clause as compromise parses it, with what stands before and after it. */
export interface VerbPhrase {
  /** The infinitive, particle and gerund included: "stopped smoking" → "stop smoking", "passed away" → "pass away". */
  lemma: string;
  /** The lemma's first word: "stop", "pass", "give". */
  head: string;
  text: string;
  /** Negated ("do not drink"), or said to be over ("no longer work"). */
  negative: boolean;
  noLonger: boolean;
  /** "used to go", a past habit. */
  usedTo: boolean;
  /** Present perfect: "have lost", "have not climbed". */
  perfect: boolean;
  /** The clause before the verb ("I finally"), and after it ("the habit and…"). */
  before: string;
  after: string;
}

interface VerbJson {
  text: string;
  offset: { start: number; length: number };
  verb: { infinitive?: string; negative?: boolean; auxiliary?: string; grammar?: { form?: string } };
}

/**
 * The verbs of one clause (contractions already expanded) in order, each with its lemma,
 * negation, "no longer", "used to" and perfect aspect, and the text around it.
 *
 * @example
 * verbPhrases("I have not climbed in over a year")[0] // → { lemma: "climb", negative: true, perfect: true, before: "I", after: "in over a year", … }
 */
export function verbPhrases(clause: string): VerbPhrase[] {
  const verbs = nlp(clause).verbs().json({ offset: true }) as VerbJson[];
  return verbs.map((verb) => {
    const { start, length } = verb.offset;
    const before = clause.slice(0, start).trim();
    const text = clause.slice(start, start + length);
    const lemma = (verb.verb.infinitive ?? text)
      .toLowerCase()
      .replace(/^to\s+/, "")
      // "had to give up climbing" is done: what was given up is the verb's; "have to" is not yet.
      .replace(/^had to\s+/, "")
      .replace(/[^\p{L}\s'-]/gu, "")
      .trim();
    return {
      lemma,
      head: lemma.split(/\s+/)[0] ?? lemma,
      text,
      negative: verb.verb.negative === true,
      noLonger: /\bno longer\b/i.test(`${before.split(/\s+/).slice(-2).join(" ")} ${text}`),
      usedTo: /\bused to\b/i.test(verb.verb.auxiliary ?? "") || /\bused to$/i.test(before),
      perfect: /perfect/.test(verb.verb.grammar?.form ?? "") || /^(?:have|has)\b/i.test(verb.verb.auxiliary ?? ""),
      before,
      after: clause.slice(start + length).trim(),
    };
  });
}

/** Words that may stand between the subject and its verb: "I finally", "we just", "I have also". */
const BETWEEN =
  /(?:\s+(?:finally|just|recently|already|also|officially|completely|totally|actually|eventually|basically|have|had|has|all|both|really|then|now|since|kind of|sort of|had to|decided to|got to))*$/i;

/**
 * Whether the user is the subject of a verb whose clause-before is `before`: it ends with "I" or
 * "we" ("Three months ago I finally", "Sam and I"), or the clause starts with the verb ("Sold the
 * Mazda last week", chat drops the subject).
 */
export function saidOfUser(before: string): boolean {
  // A dash or a semicolon starts a new statement, whose subject chat may drop: "… — retired at the end of May".
  const stripped = before
    .replace(/^.*(?:\s[—–-]|;)\s*$/, "")
    .replace(LEADING, "")
    .trim();
  return stripped === "" || new RegExp(`(?:^|\\s)(?:I|we)${BETWEEN.source}`, "i").test(stripped);
}
const LEADING =
  /^(?:(?:and|but|so|then|now|well|yeah|yes|ok|okay|oh|also|plus|anyway|honestly|actually|sadly|unfortunately|finally|recently|guess what|big news|last \w+|\w+ (?:days|weeks|months|years) ago)[,!:]?\s+)+/i;
