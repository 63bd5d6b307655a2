import { canonicalAttribute } from "../../../vocabulary/fact-attributes.js";
import type { ExtractedFact } from "../../extraction.js";
import type { KnownFact } from "../../types.js";
import type { Clause } from "./clauses.js";

/** What a rule reads: one asserted clause of a user's message, its turn, the user's current facts. */
export interface RuleInput {
  clause: Clause;
  sourceSeqs: number[];
  /** The user's current facts by attribute (`canonicalAttribute` of their keys), the most recently changed last. */
  known: ReadonlyMap<string, KnownFact>;
}

/** A rule turns a clause into the facts it states; most clauses state none. */
export type FactRule = (input: RuleInput) => ExtractedFact[];

type FactFields = Pick<ExtractedFact, "key" | "value" | "content"> & Partial<Pick<ExtractedFact, "type" | "confidence" | "operation">>;

export function fact(input: RuleInput, fields: FactFields): ExtractedFact {
  return { type: "profile", confidence: 0.9, operation: "ADD", source_seqs: input.sourceSeqs, ...fields };
}

/**
 * A retraction of `key`, written only when the user's memory holds it with a value that mentions
 * `mentioned` ("I quit the hospital" retracts the employer only when that was the hospital); with
 * no `mentioned`, whenever it holds the key.
 */
export function retraction(input: RuleInput, key: string, content: string, mentioned?: string): ExtractedFact[] {
  const held = input.known.get(canonicalAttribute(key));
  if (!held) return [];
  if (mentioned) {
    const words = mentioned.toLowerCase().replace(/^(?:the|my|a|an)\s+/, "");
    if (!`${held.content} ${JSON.stringify(held.value)}`.toLowerCase().includes(words)) return [];
  }
  return [fact(input, { key, value: content, content, operation: "DELETE" })];
}
