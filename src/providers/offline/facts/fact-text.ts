import nlp from "compromise";
import { registerWordClasses } from "./lexicon.js";
import { completed, type VerbPhrase } from "./verb-phrases.js";

registerWordClasses();

/** The parts a fact's sentence is built from: never the user's clause itself. */
export interface FactParts {
  /** Who it is about: "User" (the default), "User's daughter". */
  subject?: string;
  /** One predicate in the third person: "lives in", "works as a", "no longer drinks", "is named". */
  predicate: string;
  /** What the predicate says of the subject: a noun phrase or a name read from the clause. */
  object?: string;
  /** The verb of the clause it was read from: its aspect and negation are checked against the sentence. */
  from?: VerbPhrase;
  /** The predicate says a change happened ("moved to", "quit", "sold", "left", "graduated"). */
  completes?: boolean;
}

/** A fact's sentence, and what is wrong with it (nothing, for a sentence the reader may write). */
export interface FactText {
  content: string;
  problems: string[];
}

const FIRST_PERSON = /(?<!\p{L})(?:I|[Mm]e|[Mm]y|[Mm]ine|[Ww]e|[Uu]s|[Oo]urs?)(?!\p{L})/u;
const NEGATION = /\bnot\b|n't\b|\bno longer\b|\bnever\b|\bno\b/i;
const MAX_OBJECT_WORDS = 6;

interface TermJson {
  text: string;
  tags: string[];
}

/**
 * Builds a fact's sentence from its parts and checks it: one predicate; an object that is a phrase,
 * not a clause (no verb but a gerund, no "I" or "my" of the user's own words, at most six
 * words); a negated statement written negated; a change written as done only when the statement
 * says it is done — "I'm moving to Lyon" or "I will quit" never becomes "moved" or "quit"; and a
 * state written as present only when the statement is not about the past ("I lived in Oslo").
 *
 * @example
 * factText({ predicate: "lives in", object: "Lyon" }); // { content: "User lives in Lyon.", problems: [] }
 * factText({ predicate: "moved to", object: "Lyon", completes: true, from: verbPhrases("I am moving to Lyon")[0] }).problems;
 * // ["a statement in progress or to come written as a completed change"]
 */
export function factText(parts: FactParts): FactText {
  const subject = parts.subject ?? "User";
  const content =
    `${subject}${parts.predicate.startsWith("'") ? "" : " "}${parts.predicate}${parts.object ? ` ${parts.object}` : ""}.`.replace(
      /\s+/g,
      " ",
    );
  const problems: string[] = [];
  // The tagger reads "User loves …" as a noun phrase: a pronoun subject lets it parse the predicate.
  const doc = nlp(content.replace(/^User's\b/, "Her").replace(/^User\b/, "She"));
  // A gerund heading a noun phrase is the object's, not a second predicate: "loves sea kayaking".
  const predicates = (doc.verbs().json() as { terms: TermJson[] }[]).filter((verb) => !verb.terms[0]?.tags.includes("Gerund")).length;
  if (predicates !== 1) problems.push(`${predicates} predicates, not one`);
  if (parts.object !== undefined) problems.push(...objectProblems(parts.object, doc));
  if (parts.from) {
    if (parts.completes && !completed(parts.from)) problems.push("a statement in progress or to come written as a completed change");
    // "I played football at school" is no present habit; "I lived in Oslo" no present home.
    if (!parts.completes && parts.from.tense === "past" && parts.from.aspect === "simple" && !parts.from.usedTo)
      problems.push("a past statement written as a present state");
    if (parts.from.negative && !parts.from.noLonger && !NEGATION.test(`${parts.predicate} ${parts.object ?? ""}`))
      problems.push("a negated statement written as a positive one");
  }
  return { content, problems };
}

/** What makes an object a pasted clause rather than a phrase: its words as tagged in the fact's sentence. */
function objectProblems(object: string, sentence: ReturnType<typeof nlp>): string[] {
  const problems: string[] = [];
  const words = object.trim().split(/\s+/);
  if (words.length > MAX_OBJECT_WORDS) problems.push(`an object of ${words.length} words`);
  if (FIRST_PERSON.test(object)) problems.push("the user's own words in the object");
  const terms = (sentence.json({ terms: { tags: true } }) as { terms: TermJson[] }[]).flatMap((part) => part.terms).slice(-words.length);
  // A gerund names an activity ("sea kayaking"); any other verb makes the object a clause.
  const verbs = terms.filter((term) => term.tags.includes("Verb") && !term.tags.includes("Gerund"));
  // One word is no clause, whatever the tagger makes of it out of context ("is no longer vegan").
  if (verbs.length > 0 && words.length > 1) problems.push(`a verb in the object ("${verbs[0]?.text}")`);
  return problems;
}
