import nlp from "compromise";

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
  /** Hypothetical, future, wished-for, or someone else's words: no fact about the user's present. */
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
    for (const text of splitClauses(expanded)) clauses.push({ text, sentence: expanded, message, tagsOf, unasserted: isUnasserted(text) });
  }
  return clauses;
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
 * "Big news: I …", "I am Dutch but I live in Oslo", "I am a nurse and I hate night shifts": each
 * part is its own statement. A split happens only where a new subject begins, so "I left Google and
 * joined Stripe" stays one clause about the user.
 */
function splitClauses(sentence: string): string[] {
  return sentence
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
}

/**
 * Conditionals, wishes, plans, futures and reported speech: "If I lived in Tokyo", "I would love
 * to", "I am thinking about moving", "My boss said he lives in Paris".
 */
function isUnasserted(clause: string): boolean {
  if (/\b(?:if|would|could|might|maybe|perhaps|should|someday|one day|wish|wishes|hope|hoping|dream of|will|shall)\b/i.test(clause)) {
    return true;
  }
  if (
    /\b(?:thinking (?:about|of)|planning|plan to|want to|wants to|going to|considering|about to|moving to|trying to decide)\b/i.test(clause)
  ) {
    return true;
  }
  const reported = /\b(?:said|says|saying|told|tells|thinks|thought|believes|claims|asked|reckons)\b/i.exec(clause);
  return reported !== null && !/^(?:\S+\s+){0,2}I\b/.test(clause.slice(0, reported.index));
}
