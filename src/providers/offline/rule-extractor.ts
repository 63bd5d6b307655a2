import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";
import type { ExtractedFact, Extraction, TraitEvidenceCandidate } from "../extraction.js";
import type { ExtractionRequest, KnownFact } from "../types.js";
import { stateChangeFacts } from "./facts/change-rules.js";
import { readClauses } from "./facts/clauses.js";
import { correction } from "./facts/correction-rules.js";
import { birthdays, family } from "./facts/family-rules.js";
import { habitTrait, noteFact, rememberRequest, standingRule } from "./facts/instruction-rules.js";
import { medications } from "./facts/medication-rules.js";
import { possessions } from "./facts/possession-rules.js";
import { age, allergies, diet, home, name, origin, religion, studies, work } from "./facts/profile-rules.js";
import type { FactRule, RuleInput } from "./facts/rule.js";
import { attitudes, consumption, favorites, hobbies } from "./facts/taste-rules.js";

const FACT_RULES: FactRule[] = [
  name,
  religion,
  age,
  home,
  origin,
  work,
  studies,
  diet,
  allergies,
  medications,
  family,
  birthdays,
  favorites,
  consumption,
  hobbies,
  standingRule,
  possessions,
  stateChangeFacts,
  correction,
];

/**
 * Offline extraction by rules over the user's own statements. Precision first — a wrong fact
 * that supersedes a true one is the worst outcome — so a clause is read only when it asserts
 * something about the user now: questions, conditionals, wishes, plans, quotations and reported
 * speech say nothing (compromise parses and tags each sentence; see facts/clauses.ts), facts
 * about other people are not the user's, and a retraction ("I quit the hospital") is written only
 * when the user's memory holds what it retracts. The rules cover names, age, home and origin,
 * work, studies, partner, family and pets by name, birthdays (chrono-node reads the dates), diet
 * and allergies, what the user eats and drinks, hobbies, likes and dislikes, favourites, standing
 * instructions, "remember that …" notes and habits. Evaluated by `npm run eval:facts`.
 */
export function extractByRules(request: ExtractionRequest): Extraction {
  const extraction: Extraction = { facts: [], insights: [], traits: [], entities: [], relations: [] };
  // What the user's memory holds as the turns go by: a later turn may retract what an earlier one said.
  // Most recently changed last (the request lists them most recent first), as corrections need.
  const known = new Map<string, KnownFact>((request.knownFacts ?? []).toReversed().map((fact) => [canonicalAttribute(fact.key), fact]));
  for (const turn of request.turns) {
    if (turn.role !== "user" || pastedMaterial(turn.content)) continue;
    const facts: ExtractedFact[] = [];
    for (const clause of readClauses(turn.content)) {
      if (clause.unasserted) continue;
      const note = rememberRequest(clause.text);
      const input: RuleInput = { clause: note ? { ...clause, text: note } : clause, sourceSeqs: [turn.seq], known };
      const found = readClause(input);
      facts.push(...found.facts);
      extraction.traits.push(...found.traits);
      // Asked to remember, the user's own words are kept too unless the rules read all of them.
      if (note && !coveredBy(note, found.facts)) facts.push(noteFact(input, note));
    }
    for (const fact of oneStatementPerKey(facts)) {
      extraction.facts.push(fact);
      known.delete(canonicalAttribute(fact.key));
      if (fact.operation !== "DELETE") known.set(canonicalAttribute(fact.key), { key: fact.key, value: fact.value, content: fact.content });
    }
  }
  return extraction;
}

const FILLER = new Set([
  "i",
  "am",
  "is",
  "are",
  "my",
  "the",
  "a",
  "an",
  "to",
  "of",
  "on",
  "at",
  "in",
  "and",
  "that",
  "me",
  "user",
  "user's",
]);
const contentWords = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .map((word) => word.replace(/^(\d+)(?:st|nd|rd|th)$/, "$1"))
    .filter((word) => word.length > 0 && !FILLER.has(word));

/** Whether every telling word of a note is already in the facts read from it ("I am allergic to peanuts"). */
function coveredBy(note: string, facts: ExtractedFact[]): boolean {
  const said = new Set(facts.flatMap((fact) => contentWords(fact.content)));
  return facts.length > 0 && contentWords(note).every((word) => said.has(word));
}

function readClause(input: RuleInput): { facts: ExtractedFact[]; traits: TraitEvidenceCandidate[] } {
  const facts = FACT_RULES.flatMap((rule) => rule(input));
  const taste = attitudes(input);
  const habit = habitTrait(input);
  return { facts: [...facts, ...taste.facts], traits: [...taste.traits, ...(habit ? [habit] : [])] };
}

/**
 * One message, one statement per key: the last value it gives; a retraction only when the message
 * gives no new value ("I started at Acme. I quit the hospital." keeps Acme).
 */
function oneStatementPerKey(facts: ExtractedFact[]): ExtractedFact[] {
  const byKey = new Map<string, ExtractedFact>();
  for (const fact of facts) {
    const key = canonicalAttribute(fact.key);
    const held = byKey.get(key);
    if (fact.operation === "DELETE" && held?.operation === "ADD") continue;
    byKey.delete(key);
    byKey.set(key, fact);
  }
  return [...byKey.values()];
}

/**
 * A message that carries someone else's words rather than the user's: a transcript or an
 * interview pasted for a task ("Transcript 4: …", "Q. … A. …", "Lizy Thomson 00:03 …"), or a
 * document far longer than anyone writes about themselves.
 */
function pastedMaterial(content: string): boolean {
  if (content.length > 4000) return true;
  const speakerTurns =
    content.match(/(?:^|\s)(?:Q\.|A\.|Q:|A:|Interviewer:|\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+)? \d{1,2}:\d{2}|\p{Lu}[\p{L}'-]+:)\s/gu) ??
    [];
  return /\btranscript\b/i.test(content) || speakerTurns.length >= 4;
}
