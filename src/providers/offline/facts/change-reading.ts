import nlp from "compromise";
import { DISCOURSE, IS_RELATION, LIGHT, RELATION_WORDS, THING_END } from "./change-words.js";
import type { Clause } from "./clauses.js";
import { looksLikeName, objectPhrase } from "./phrases.js";
import type { VerbPhrase } from "./verb-phrases.js";

/** The classes of statement that end, change or correct something the user said before. */
export type ChangeClass =
  | "cessation"
  | "past"
  | "death"
  | "rehomed"
  | "breakup"
  | "sale"
  | "studies-ended"
  | "job-left"
  | "place-left"
  | "state-ended"
  | "taste-ended"
  | "taste-began";

/**
 * A change of state read from one clause: what ended (a thing, people or animals by name or
 * relation, an attribute of the profile), and the words of the statement for the record.
 */
export interface StateChange {
  change: ChangeClass;
  /** The thing that ended: "smoking", "the Mazda", "Japanese". */
  thing?: string;
  names: string[];
  /** Relation words ("grandpa", "dog") when no name is given. */
  relations: string[];
  /** For job-left / place-left / studies-ended: a name the held value must mention ("Spotify"), if said. */
  mentions?: string;
  verb: VerbPhrase;
}

/** What a reader finds: a class and what it names; the verb and empty lists are filled in for it. */
export type FoundChange = Pick<StateChange, "change"> & Partial<Omit<StateChange, "change" | "verb">>;

/**
 * One verb of a clause with what the readers ask of it, worked out once: who says it, what it
 * acts on, what a copula says of its subject, and whether the clause says it holds no more.
 */
export interface VerbReading {
  verb: VerbPhrase;
  clause: Clause;
  /** The user is the verb's subject (or shares it with the verb before: "kicked the habit and stopped smoking"). */
  byUser: boolean;
  /** The gerund a verb keeps in its lemma or text: "stop smoking" → "smoking". */
  rest: string;
  /** What the verb acts on: its gerund, then the words after it. */
  acted: string;
  /** What a copula says of its subject, "not" / "no longer" taken off: "is dead" → "dead". */
  complement: string;
  /** What is said of the subject after "is": "is off the table" → "off the table". */
  predicate: string;
  /** The clause says "any more", "these days", "nowadays" or "no longer". */
  anyMore: boolean;
  /** The verb is "no longer", or negated with "any more" in the clause. */
  noMore: boolean;
  /** The thing the clause is about when the user is not the subject: "tennis" of "tennis is off the table". */
  subject(): string | undefined;
  /** The thing before the verb, or for "it" the last thing of the user's named earlier in the clause. */
  subjectThing(): string | undefined;
}

/** A reader of one form of change: the changes it finds (maybe none) when the form is its, else undefined. */
export type ChangeReader = (reading: VerbReading) => FoundChange[] | undefined;

/** Whether a capitalised word is, written in lower case, an ordinary word and not a name or a place. */
function commonWord(word: string): boolean {
  const tags = new Set((nlp(word.toLowerCase()).json({ terms: { tags: true } }) as { terms: { tags: string[] }[] }[])[0]?.terms[0]?.tags);
  return !["ProperNoun", "Place", "Person", "FirstName", "Organization", "Country", "City"].some((tag) => tags.has(tag));
}

/** The last phrase of a clause's text before a verb: "My knee is shot so tennis" → "tennis". */
export const lastPhrase = (before: string) =>
  before
    .split(/\b(?:so|and|but|because|since|now that|which means|that means)\b|[,;:]/i)
    .pop()
    ?.trim() ?? "";

/** The thing a verb acts on, without light verbs, articles or the rest of the clause: "taking the bus since…" → "bus". */
export function thingOf(raw: string, clause?: Clause): string | undefined {
  let text = raw
    .trim()
    .replace(/^[,;:]\s*/, "")
    .replace(DISCOURSE, "");
  // A subject that opens the sentence is capitalised for that reason alone: "Horror films don't…".
  const first = /^\p{Lu}[\p{Ll}'-]*/u.exec(text)?.[0];
  if (clause && first && text === raw.trim() && commonWord(first)) text = `${first.toLowerCase()}${text.slice(first.length)}`;
  for (let pass = 0; pass < 4 && LIGHT.test(text); pass += 1) text = text.replace(LIGHT, "");
  const phrase = objectPhrase((text.split(/\s*[,;—–]\s*/)[0] ?? "").replace(THING_END, ""));
  return phrase && !/^(?:it|that|this|them|the habit|habit|one|all|everything)$/i.test(phrase) ? phrase : undefined;
}

/** The names of people or animals in a text: capitalised words that read as names, relations said as names left out. */
export function namesIn(text: string, clause: Clause): string[] {
  return (
    [...text.matchAll(/\b\p{Lu}[\p{L}'-]+\b/gu)]
      .map((match) => match[0])
      .filter(
        (word) =>
          !/^(?:I|We|My|Our|The|A|An|Sorry|Actually|Last|This|Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday)$/.test(word),
      )
      // "Grandad passed away": a relation said as a name is the relation.
      .filter((word) => !IS_RELATION.test(word))
      .filter((word) => looksLikeName(word, clause))
  );
}

/**
 * The relation words of a text that are the user's: "my cat", "our dog", "Grandad", "the cat" —
 * not "my neighbour's cat", "her dog" or "a friend's hamster", which are someone else's, nor
 * "my mum's friend", who is not the mum.
 */
export const relationsIn = (text: string) =>
  [...text.matchAll(RELATION_WORDS)]
    .filter((match) => !SOMEONE_ELSES.test(text.slice(0, match.index)))
    // "my mum's friend": the relation owns who is meant.
    .filter((match) => !/^'s\b/.test(text.slice(match.index + match[0].length)))
    .map((match) => (match[1] as string).toLowerCase());
/** What makes the relation word after it someone else's: a possessive other than the user's. */
const SOMEONE_ELSES =
  /(?:\b(?:his|her|their|your|its|a|an)\s+(?:\p{L}+\s+)?|\p{L}'s\s+(?:\p{L}+\s+)?|\bof (?:a|my|our|his|her) \p{L}+\s+)$/iu;

/** The employer a job-leaving verb names, if any: "from Walmart", "at the BBC". */
export function employerLeft(after: string): Partial<StateChange> {
  const employer = /\b(?:from|at|with)\s+((?:the\s+)?\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*)/u.exec(after)?.[1];
  return employer ? { mentions: employer.replace(/^the\s+/i, "") } : {};
}

/** "climb" → "climbing", for a habit named by its verb. */
export function gerund(lemma: string): string {
  const verb = lemma.split(/\s+/)[0] ?? lemma;
  if (/ie$/.test(verb)) return `${verb.slice(0, -2)}ying`;
  if (/[^aeiou]e$/.test(verb)) return `${verb.slice(0, -1)}ing`;
  return `${verb}ing`;
}
