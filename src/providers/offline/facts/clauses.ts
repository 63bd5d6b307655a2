import nlp from "compromise";
import { registerWordClasses } from "./lexicon.js";
import { type Modality, modalityOf } from "./modality.js";

registerWordClasses();

/**
 * One clause of a user's message, ready for the rules: quotations removed (the user quoting someone
 * says nothing about the user), contractions expanded ("I'm" → "I am", "don't" → "do not"), and
 * what compromise's tagger says about its words, for the checks regular expressions cannot make
 * (is "Happy" a name or an adjective, is "engineer" a job here).
 */
export interface Clause {
  text: string;
  /** The sentence and the whole message it comes from, for what a clause alone cannot tell ("packed up and headed to…"). */
  sentence: string;
  message: string;
  /** compromise's tags of each word in the clause, by the word as written. */
  tagsOf(word: string): ReadonlySet<string>;
  /** How the clause asserts what it says (modality.ts): only an `asserted` clause states a fact. */
  modality: Modality;
  /** Not asserted: a condition, a wish, an obligation, a hypothesis, someone else's words, sarcasm. */
  unasserted: boolean;
}

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** The clauses of a message that state something: questions are skipped whole. */
export function readClauses(message: string): Clause[] {
  const clauses: Clause[] = [];
  for (const sentence of sentences(message)) {
    if (isQuestion(sentence)) continue;
    // compromise reads "master's" as "master is"; the degree is what is meant.
    const doc = nlp(
      sentence
        .replace(/[‘’]/g, "'")
        .replace(/[“”]/g, '"')
        .replace(/\b(master|bachelor)'s\b/gi, "$1s"),
    );
    doc.quotations().remove("");
    doc.contractions().expand();
    const tags = new Map<string, Set<string>>();
    for (const term of doc.json({ terms: { tags: true } }).flatMap((sentenceJson: { terms: TermJson[] }) => sentenceJson.terms)) {
      tags.set(bare(term.text), new Set(term.tags));
    }
    const tagsOf = (word: string) => tags.get(bare(word)) ?? NO_TAGS;
    const expanded = doc.text();
    for (const part of splitClauses(expanded)) {
      const text = withSubject(part, tagsOf);
      // Sarcasm marks the whole sentence ("Oh great, I love Mondays"); the rest is the clause's own.
      const modality = modalityOf(text) === "asserted" && modalityOf(expanded) === "sarcastic" ? "sarcastic" : modalityOf(text);
      clauses.push({ text, sentence: expanded, message, tagsOf, modality, unasserted: modality !== "asserted" });
    }
  }
  return clauses;
}

/** Adverbs chat puts before a verb whose subject it dropped: "Just got back", "Finally quit". */
const DROPPED_SUBJECT_ADVERB = /^(?:(?:just|finally|recently|also|officially|actually|eventually|basically|already)\s+)*/i;

/**
 * Chat drops the subject of what the user did: "Got a new bike today", "Sold the
 * van", "Been a runner for years". A clause that opens with a verb in the past is the user's, and
 * is read as "I got promoted …" so that every rule sees its subject; a present-tense opening is
 * an imperative ("Tell me …") and stays as it is.
 */
function withSubject(clause: string, tagsOf: (word: string) => ReadonlySet<string>): string {
  const adverbs = DROPPED_SUBJECT_ADVERB.exec(clause)?.[0] ?? "";
  const rest = clause.slice(adverbs.length);
  const first = /^\p{L}+/u.exec(rest)?.[0];
  if (!first) return clause;
  const tags = tagsOf(first);
  const opensInThePast = tags.has("Verb") && (tags.has("PastTense") || /^got$/i.test(first)) && !tags.has("Gerund");
  if (!opensInThePast) return clause;
  const verb = /^been$/i.test(first) ? "have been" : first.toLowerCase();
  return `I ${adverbs.toLowerCase()}${verb}${rest.slice(first.length)}`;
}

/** Sentences, not split after a title ("St. Mary's", "Dr. Lee"), whitespace collapsed. */
function sentences(message: string): string[] {
  const found: string[] = [];
  for (const { segment } of segmenter.segment(message)) {
    const sentence = segment.trim().replace(/\s+/g, " ");
    const previous = found[found.length - 1];
    if (previous !== undefined && /\b(?:St|Dr|Mr|Mrs|Ms|Mt|Jr|Prof)\.$/.test(previous)) found[found.length - 1] = `${previous} ${sentence}`;
    else if (sentence.length > 0) found.push(sentence);
  }
  return found;
}

interface TermJson {
  text: string;
  tags: string[];
}

const NO_TAGS: ReadonlySet<string> = new Set();
const bare = (word: string) => word.replace(/[^\p{L}\p{N}'-]/gu, "").replace(/'s$/, "");

function isQuestion(sentence: string): boolean {
  return (
    /\?\s*$/.test(sentence) || /^(?:do|does|did|should|would|could|can|is|are|am|will|what|where|who|how|why|when)\b[^.!]*$/i.test(sentence)
  );
}

/**
 * "Big news: I …", "I am Irish but I live in Lyon", "I am a nurse and I hate night shifts": each
 * part is its own statement. A split happens only where a new subject begins, so "I left Google and
 * joined Stripe" stays one clause about the user.
 */
function splitClauses(sentence: string): string[] {
  const parts = sentence
    .split(
      /\s*[:;]\s+|\s+[—–]\s+(?=(?:I|my|we|our)\b)|,?\s+(?:but|and|so|because|although|though|while|whereas)\s+(?=(?:I|my|we|our)\b)|,\s+(?=I\s)/i,
    )
    .map((part) =>
      part
        .trim()
        .replace(/[.!…]+$/, "")
        .trim(),
    )
    .filter((part) => part.length > 0);
  // "Kim and I are not together": a name and "I" are one subject, not two statements.
  return parts.flatMap((part, index) => {
    if (JOINT_SUBJECT.test(part) && /^I (?:are|were|have|had)\b/.test(parts[index + 1] ?? "")) return [];
    const previous = parts[index - 1];
    return previous !== undefined && JOINT_SUBJECT.test(previous) && /^I (?:are|were|have|had)\b/.test(part)
      ? [`${previous} and ${part}`]
      : [part];
  });
}
/** What can stand before "and I" as the other half of one subject: "Kim", "my husband". */
const JOINT_SUBJECT = /^(?:\p{Lu}[\p{L}'-]+|(?:my|our) \p{L}+)$/u;
