import type { ExtractedFact } from "../../extraction.js";
import type { KnownFact } from "../../types.js";
import { looksLikeName, nameKey } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";

/** How a correction opens: "sorry", "actually", "correction:", "wait", "I meant". */
const CUE = /^(?:sorry|oops|actually|correction|wait|no|nope|rather|scratch that|my bad|my mistake|to be clear|I mean|I meant)\b/i;
/** "I meant Braga, not Porto", "it is KPMG, not Deloitte", "Braga, not Porto": the right value, then the wrong one. */
const INSTEAD =
  /\b(?:I meant|I mean|it is|it was|that is|make that|should be|should have said)?\s*(\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*),?\s+(?:not|rather than|instead of)\s+(\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*)/u;
/** "it's codeine I react to, not penicillin": a value in lower case, the wrong one after "not" (read only when held). */
const LOWER_INSTEAD = /\bit (?:is|was)\s+([\p{L}-]+)(?: (?:that )?I \p{L}+(?: to)?)?,?\s+(?:not|rather than|instead of)\s+([\p{L}-]+)/iu;
/** "I meant 43, not 34", "it's the 24th, not the 14th": a number or a day put right (read only when held). */
const NUMBER_INSTEAD =
  /(?:^|[\s,])(?:the )?(\d{1,4})(?:st|nd|rd|th)?,?\s+(?:not|rather than|instead of)\s+(?:the )?(\d{1,4})(?:st|nd|rd|th)?\b/i;
/** "not Porto but Braga". */
const NOT_BUT = /\bnot\s+(\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*),?\s+but\s+(\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*)/u;
/** "actually her name is Maya": a name put right without saying the wrong one. */
const NAME_IS = /\b(?:her|his|their|its|the) name is (\p{Lu}[\p{L}'-]+)/u;

/**
 * A correction within the conversation ("Sorry, I meant Braga, not Porto"; "Correction: it's
 * KPMG, not Deloitte"; "Actually her name is Maya"): the current fact that holds the wrong value
 * (or, when the wrong one goes unsaid, the most recent fact that names someone) is restated with the
 * right one under its key, so it supersedes with history; a key made of the wrong name is retracted
 * and the fact written under the right one.
 */
export const correction: FactRule = (input) => {
  const { sentence } = input.clause;
  if (!CUE.test(sentence) && !/\bI meant\b/i.test(sentence)) return [];
  const instead = INSTEAD.exec(sentence) ?? LOWER_INSTEAD.exec(sentence) ?? NUMBER_INSTEAD.exec(sentence);
  const notBut = instead ? null : NOT_BUT.exec(sentence);
  const bare = (words: string | undefined) => words?.replace(/[.,;:!?]+$/, "");
  const [right, wrong] = instead
    ? [bare(instead[1]), bare(instead[2])]
    : notBut
      ? [bare(notBut[2]), bare(notBut[1])]
      : [undefined, undefined];
  const known = [...input.known.values()];
  if (right && wrong) {
    const held = known.findLast((item) => holds(item, wrong));
    return held ? restated(input, held, wrong, right) : [];
  }
  const name = NAME_IS.exec(sentence)?.[1];
  if (!name || !looksLikeName(name, input.clause)) return [];
  const held = known.findLast((item) => /^(?:family|pet):|^profile:partner$/.test(item.key) && namedIn(item) !== undefined);
  const old = held ? namedIn(held) : undefined;
  return held && old && old !== name ? restated(input, held, old, name) : [];
};

/** Whether `words` is the value a fact holds (a word of its content or of its value). */
function holds(item: KnownFact, words: string): boolean {
  const pattern = new RegExp(`\\b${words.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i");
  return pattern.test(item.content) || pattern.test(JSON.stringify(item.value));
}

function namedIn(item: KnownFact): string | undefined {
  const value = item.value as { name?: unknown } | null;
  return value && typeof value === "object" && typeof value.name === "string" ? value.name : undefined;
}

function restated(input: RuleInput, held: KnownFact, wrong: string, right: string): ExtractedFact[] {
  const swap = (text: string) => text.replace(new RegExp(`\\b${wrong.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "gi"), right);
  const value = typeof held.value === "string" ? swap(held.value) : JSON.parse(swap(JSON.stringify(held.value)));
  const renamed = held.key.endsWith(`:${nameKey(wrong)}`) ? `${held.key.slice(0, -nameKey(wrong).length)}${nameKey(right)}` : held.key;
  const content = swap(held.content);
  return [
    ...(renamed === held.key
      ? []
      : [fact(input, { key: held.key, value: content, content: `${content} (corrected)`, operation: "DELETE" })]),
    fact(input, { key: renamed, value, content }),
  ];
}
