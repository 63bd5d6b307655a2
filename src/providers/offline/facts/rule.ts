import { canonicalAttribute } from "../../../vocabulary/fact-attributes.js";
import type { ExtractedFact } from "../../extraction.js";
import type { KnownFact } from "../../types.js";
import type { Clause } from "./clauses.js";
import { type FactParts, factText } from "./fact-text.js";
import { saidOfUser, type VerbPhrase, verbPhrases } from "./verb-phrases.js";

/** What a reader reads: one asserted clause of a user's message, its turn, the user's current facts. */
export interface RuleInput {
  clause: Clause;
  sourceSeqs: number[];
  /** The user's current facts by attribute (`canonicalAttribute` of their keys), the most recently changed last. */
  known: ReadonlyMap<string, KnownFact>;
}

/** A reader turns a clause into the facts it states; most clauses state none. */
export type FactRule = (input: RuleInput) => ExtractedFact[];

type FactFields = Pick<ExtractedFact, "key" | "value"> & Partial<Pick<ExtractedFact, "type" | "confidence" | "operation">> & FactParts;

/**
 * A fact whose sentence is built from its parts and checked (fact-text.ts): none when the check
 * finds a problem, so a clause that does not parse as the reader expected writes nothing.
 */
export function fact(input: RuleInput, fields: FactFields): ExtractedFact[] {
  const { subject, predicate, object, from, completes, key, value, type, confidence, operation } = fields;
  const text = factText({
    predicate,
    ...(subject !== undefined ? { subject } : {}),
    ...(object !== undefined ? { object } : {}),
    ...(from ? { from } : {}),
    ...(completes ? { completes } : {}),
  });
  if (text.problems.length > 0) return [];
  return [
    {
      type: type ?? "profile",
      key,
      value,
      content: text.content,
      confidence: confidence ?? 0.9,
      operation: operation ?? "ADD",
      source_seqs: input.sourceSeqs,
    },
  ];
}

/**
 * A retraction of `key`, written only when the user's memory holds it with a value that mentions
 * `mentioned` ("I left Fenwick" retracts the employer only when that was Fenwick); with no
 * `mentioned`, whenever it holds the key. Its sentence says what ended, built as any fact's.
 */
export function retraction(input: RuleInput, key: string, parts: FactParts, mentioned?: string): ExtractedFact[] {
  const held = input.known.get(canonicalAttribute(key));
  if (!held) return [];
  if (mentioned) {
    const words = mentioned.toLowerCase().replace(/^(?:the|my|a|an)\s+/, "");
    if (!`${held.content} ${JSON.stringify(held.value)}`.toLowerCase().includes(words)) return [];
  }
  const built = factText(parts);
  return built.problems.length > 0 ? [] : fact(input, { ...parts, key: held.key, value: built.content, operation: "DELETE" });
}

/** Each clause's verbs, parsed once though every reader asks. */
const PARSED = new WeakMap<Clause, VerbPhrase[]>();

/** The verbs of a clause (verb-phrases.ts), parsed once per clause. */
export function clauseVerbs(clause: Clause): VerbPhrase[] {
  const parsed = PARSED.get(clause) ?? verbPhrases(clause.text);
  PARSED.set(clause, parsed);
  return parsed;
}

/**
 * The verbs of a clause whose subject is the user: "I" or "we" before them, a dropped subject, or
 * the subject of the verb before when "and" joins them ("I left Fenwick and joined Orla").
 */
export function userVerbs(clause: Clause): VerbPhrase[] {
  let previous = false;
  return clauseVerbs(clause).filter((verb) => {
    const joined = previous && /(?:\band|\bor|\bthen|,)\s*$/i.test(verb.before);
    previous = saidOfUser(verb.before) || joined;
    return previous;
  });
}
