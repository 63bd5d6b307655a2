import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";
import type { ExtractedFact, ExtractedItems, TraitEvidenceCandidate } from "../extraction.js";
import type { ExtractionRequest, KnownFact } from "../types.js";
import { deaths, endedPeople, ownChanges } from "./facts/change-readers.js";
import { readClauses } from "./facts/clauses.js";
import { correction } from "./facts/correction-readers.js";
import { birthdays, family } from "./facts/family-readers.js";
import { habitTrait, standingRule } from "./facts/instruction-readers.js";
import { nameKey } from "./facts/phrases.js";
import { age, home, name, origin, states, studies, work } from "./facts/profile-readers.js";
import type { FactRule, RuleInput } from "./facts/rule.js";
import { attitudes, consumption, favorites, hobbies, possessions } from "./facts/taste-readers.js";

/** The attitude facts ride with their traits (`attitudes` reads both). */
const attitudeFacts: FactRule = (input) => attitudes(input).facts;

/** The readers of one asserted clause, in order: a later one's fact under the same key wins. */
const READERS: FactRule[] = [
  name,
  age,
  home,
  origin,
  work,
  studies,
  states,
  family,
  birthdays,
  attitudeFacts,
  favorites,
  consumption,
  hobbies,
  possessions,
  standingRule,
  ownChanges,
  deaths,
  correction,
];

/**
 * The offline reader: what users assert about themselves, read by grammar. compromise parses each
 * clause (facts/clauses.ts): its verbs with their tense, aspect, modality and negation
 * (verb-phrases.ts, modality.ts); a clause that is a question, a condition, a wish or plan, an
 * obligation, a hypothesis, someone else's words or sarcasm states nothing. Readers then take the
 * structures English states facts with — a copula and its complement, a verb and its object or
 * preposition, apposition and the possessive for people — with the closed classes of kin, animals,
 * verbs of liking, consuming and ending (word-classes.ts). Every fact's sentence is built from the
 * parts read and checked (fact-text.ts). A statement about an attribute the memory holds is an
 * UPDATE (a changed value), a NOOP (the same), a CORRECT (a repair) or a DELETE (an ending), and an
 * ending is written only when the memory holds what it ends. Evaluated by `npm run eval:facts`.
 */
export function extractByRules(request: ExtractionRequest): ExtractedItems {
  const extraction: ExtractedItems = { facts: [], insights: [], traits: [], entities: [], relations: [] };
  // What the user's memory holds as the turns go by: a later turn may end what an earlier one said.
  // Most recently changed last (the request lists them most recent first), as corrections need.
  const known = new Map<string, KnownFact>((request.knownFacts ?? []).toReversed().map((fact) => [canonicalAttribute(fact.key), fact]));
  for (const turn of request.turns) {
    if (turn.role !== "user" || pastedMaterial(turn.content)) continue;
    const facts: ExtractedFact[] = [];
    for (const clause of readClauses(turn.content)) {
      if (clause.unasserted) continue;
      const input: RuleInput = { clause, sourceSeqs: [turn.seq], known };
      // Someone the clause says died is not written as one of the user's people too.
      const gone = new Set(endedPeople(clause).flatMap((ended) => ended.names.map(nameKey)));
      facts.push(...READERS.flatMap((read) => read(input)).filter((found) => !(found.operation !== "DELETE" && namesGone(found, gone))));
      extraction.traits.push(...readTraits(input));
    }
    for (const fact of oneStatementPerKey(facts)) {
      const stated = againstHeld(fact, known.get(canonicalAttribute(fact.key)));
      extraction.facts.push(stated);
      known.delete(canonicalAttribute(fact.key));
      if (stated.operation !== "DELETE")
        known.set(canonicalAttribute(fact.key), { key: fact.key, value: fact.value, content: fact.content });
    }
  }
  return extraction;
}

function readTraits(input: RuleInput): TraitEvidenceCandidate[] {
  const habit = habitTrait(input);
  return [...attitudes(input).traits, ...(habit ? [habit] : [])];
}

const namesGone = (fact: ExtractedFact, gone: ReadonlySet<string>) =>
  gone.size > 0 &&
  [...gone].some((name) => fact.key.endsWith(`:${name.replace(/ /g, "_")}`) || JSON.stringify(fact.value).toLowerCase().includes(name));

/**
 * The operation a fact states against what the memory holds under its attribute: a new value of a
 * held attribute is an UPDATE, the same value a NOOP; a repair stays a CORRECT, an ending a DELETE.
 */
function againstHeld(fact: ExtractedFact, held: KnownFact | undefined): ExtractedFact {
  if (fact.operation !== "ADD" || !held) return fact;
  const same = JSON.stringify(held.value) === JSON.stringify(fact.value) || held.content === fact.content;
  return { ...fact, operation: same ? "NOOP" : "UPDATE" };
}

/**
 * One message, one statement per key: the last value it gives; a retraction only when the message
 * gives no new value ("I started at Orla. I left Fenwick." keeps Orla).
 */
function oneStatementPerKey(facts: ExtractedFact[]): ExtractedFact[] {
  const byKey = new Map<string, ExtractedFact>();
  for (const fact of facts) {
    const key = canonicalAttribute(fact.key);
    const held = byKey.get(key);
    if (fact.operation === "DELETE" && held !== undefined && held.operation !== "DELETE") continue;
    byKey.delete(key);
    byKey.set(key, fact);
  }
  return [...byKey.values()];
}

/**
 * A message that carries someone else's words rather than the user's: a transcript or an
 * interview pasted for a task (speaker turns: "Q. … A. …", "Name 00:03 …", "Name: …"), or a
 * document far longer than anyone writes about themselves.
 */
function pastedMaterial(content: string): boolean {
  if (content.length > 4000) return true;
  const speakerTurns =
    content.match(/(?:^|\s)(?:Q\.|A\.|Q:|A:|\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+)? \d{1,2}:\d{2}|\p{Lu}[\p{L}'-]+:)\s/gu) ?? [];
  return /\btranscript\b/i.test(content) || speakerTurns.length >= 4;
}
