import type { ExtractedFact, TraitEvidenceCandidate } from "../../extraction.js";
import { thirdPerson } from "./conjugation.js";
import { slug } from "./phrases.js";
import { fact, type RuleInput, userVerbs } from "./rule.js";

/**
 * A standing instruction to the assistant — the imperative mood with "always", "never" or "from now
 * on", addressed to the assistant (it names "me", "my" or "you", or its verb is one of answering):
 * "Always answer in German", "From now on, call me Sam". "Never give up!" is not one.
 */
export function standingRule(input: RuleInput): ExtractedFact[] {
  const match = /^(?:please\s+)?(?:(always|never|do not ever)\s+|from now on,?\s+)(.+?)$/i.exec(input.clause.text);
  const instruction = match?.[2];
  const verb = instruction ? /^\p{L}+/u.exec(instruction)?.[0] : undefined;
  if (!instruction || !verb || /^I\b/i.test(instruction) || !input.clause.tagsOf(verb).has("Verb")) return [];
  if (!/\b(?:me|my|you|your)\b/i.test(instruction) && !/^(?:answer|reply|respond|write|speak|talk|use|call|keep)$/i.test(verb)) return [];
  const said = `${match[1] ? `${(match[1] as string).toLowerCase()} ` : ""}${instruction}`;
  return fact(input, { type: "rule", key: `rule:${slug(instruction)}`, value: said, subject: "User's rule:", predicate: said });
}

const FREQUENCY = /^(always|usually|normally|often|never|sometimes|rarely)\b/i;
const FREQUENCY_AT_END = /\b(always|usually|normally|often|never|sometimes|rarely)$/i;

const HABIT_QUALITY: Record<string, "A" | "B" | "C"> = {
  always: "A",
  never: "A",
  usually: "B",
  normally: "B",
  often: "B",
  sometimes: "C",
  rarely: "C",
};

/**
 * Habitual behaviour — an adverb of frequency before a verb in the simple present ("I usually cycle
 * to work") — is evidence for a behaviour trait, said as "User usually cycles to work.": the verb in
 * the third person and its object, read from the clause's parts.
 */
export function habitTrait(input: RuleInput): TraitEvidenceCandidate | null {
  for (const verb of userVerbs(input.clause)) {
    // compromise keeps the adverb in the verb's text ("usually cycle") or leaves it before it.
    const adverb = (FREQUENCY.exec(verb.text)?.[1] ?? FREQUENCY_AT_END.exec(verb.before)?.[1])?.toLowerCase();
    // Said of the user by an explicit "I" or "we": without a subject, "Always answer in Danish" is an instruction.
    const subject = /\b(?:I|we)\b/i.test(verb.before.replace(FREQUENCY_AT_END, ""));
    if (!adverb || !subject || verb.aspect !== "simple" || verb.tense !== "present" || verb.modal) continue;
    // What follows the verb up to the end of its phrase, prepositions kept: "to the harbour".
    const object =
      verb.after
        .split(/[,;]|\s+(?:because|but|when|while|and|so|if)\s+/i)[0]
        ?.trim()
        .split(/\s+/)
        .slice(0, 6)
        .join(" ") || null;
    const action = `${thirdPerson(verb.head)}${object ? ` ${object}` : ""}`;
    if (object && /\b(?:I|me|my|we|our)\b/i.test(object)) continue;
    return {
      subtype: "behavior",
      key: `behavior:${adverb === "never" ? "never_" : ""}${slug(`${verb.head} ${object ?? ""}`)}`,
      content: `User ${adverb} ${action}.`,
      direction: "supporting",
      quality: HABIT_QUALITY[adverb] as "A" | "B" | "C",
      source_seqs: input.sourceSeqs,
    };
  }
  return null;
}
