import type { ExtractedFact, TraitEvidenceCandidate } from "../../extraction.js";
import { objectPhrase, slug } from "./phrases.js";
import { fact, type RuleInput } from "./rule.js";

/** A standing instruction to the assistant: "Always answer in German", "From now on, call me Sam". */
export function standingRule(input: RuleInput): ExtractedFact[] {
  const match = /^(?:please\s+)?(?:(always|never|do not ever)\s+|from now on,?\s+)(.+?)$/i.exec(input.clause.text);
  if (!match || /^I\b/i.test(match[2] as string) || !ADDRESSED.test(match[2] as string)) return [];
  const instruction = `${match[1] ? `${(match[1] as string).toLowerCase()} ` : ""}${match[2]}`;
  return [
    fact(input, { type: "rule", key: `rule:${slug(match[2] as string)}`, value: instruction, content: `User's rule: ${instruction}.` }),
  ];
}

/**
 * An instruction speaks to the assistant about how to answer or about the user: "answer in
 * German", "call me Sam", "remind me…"; "never give up!" and "always here to help" are not.
 */
const ADDRESSED =
  /^(?:reply|respond|answer|write|speak|talk|call|use|format|include|mention|remind|ask|suggest|recommend|tell|show|send|book|schedule|cc|sign|address|refer|keep it|keep answers|keep replies|be brief|be concise|check|avoid|assume|put|list|give me|explain|translate|spell)\b|\b(?:me|my)\b/i;

/**
 * "Please remember that my gym closes at 9": kept as said when no other rule read it — only when
 * the clause opens with the request; "it made me remember how…", "just remember that…" and
 * "remember to take your time" are not notes for the assistant.
 */
export function rememberRequest(text: string): string | null {
  const match = /^(?:please\s+)?(?:remember|do not forget|note)\s+(?:that\s+)?(.+)$/i.exec(text);
  const note = match ? (match[1] as string).replace(/[.!?]+$/, "") : null;
  return note && !/^(?:to|how|what|when|why|where|who)\s/i.test(note) ? note : null;
}

export function noteFact(input: RuleInput, note: string): ExtractedFact {
  return fact(input, { key: `note:${slug(note)}`, value: note, content: `User asked to remember: ${note}.`, confidence: 0.95 });
}

const HABIT_QUALITY: Record<string, "A" | "B" | "C"> = {
  always: "A",
  never: "A",
  usually: "B",
  normally: "B",
  often: "B",
  sometimes: "C",
  rarely: "C",
};

/** Habitual behaviour ("I usually cycle to work") is evidence for a behaviour trait. */
export function habitTrait(input: RuleInput): TraitEvidenceCandidate | null {
  const match = /\bI\s+(always|usually|normally|often|never|sometimes|rarely)\s+(.+)$/i.exec(input.clause.text);
  const phrase = match ? objectPhrase(match[2] as string) : null;
  if (!match || !phrase) return null;
  const adverb = (match[1] as string).toLowerCase();
  return {
    subtype: "behavior",
    key: `behavior:${adverb === "never" ? "never_" : ""}${slug(phrase)}`,
    content: `User says they ${adverb} ${phrase}.`,
    direction: "supporting",
    quality: HABIT_QUALITY[adverb] as "A" | "B" | "C",
    source_seqs: input.sourceSeqs,
  };
}
