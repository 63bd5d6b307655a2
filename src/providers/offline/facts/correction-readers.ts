import type { ExtractedFact } from "../../extraction.js";
import type { KnownFact } from "../../types.js";
import { nameKey } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";

/** How a correction opens: an apology or a discourse marker of repair ("sorry", "actually", "I meant"). */
const REPAIR = /^(?:sorry|oops|actually|correction|wait|no|rather|my mistake|I mean|I meant)\b|\bI meant\b/i;
/** Contrastive negation: the right value, then "not" and the wrong one ("Ghent, not Bruges"; "43, not 34"). */
const VALUE = String.raw`\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*|[\p{Ll}\d][\p{L}\d'-]*`;
const INSTEAD = new RegExp(String.raw`(?:^|[\s,:])(${VALUE}),?\s+(?:not|rather than|instead of)\s+(?:the\s+)?(${VALUE})`, "u");
/** The other order: "not Bruges but Ghent". */
const NOT_BUT = new RegExp(String.raw`\bnot\s+(${VALUE}),?\s+but\s+(${VALUE})`, "u");

const escaped = (words: string) => words.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const ordinal = (words: string) => words.replace(/^(\d+)(?:st|nd|rd|th)$/i, "$1");

/**
 * A repair of something said before ("Sorry, I meant Ghent, not Bruges"; "actually it's 43, not
 * 34"): the current fact that holds the wrong value is restated with the right one under its key,
 * as a CORRECT, so it is superseded with history. Read only against a held fact: a contrast that
 * names no held value says nothing.
 */
export const correction: FactRule = (input) => {
  const { sentence } = input.clause;
  if (!REPAIR.test(sentence)) return [];
  const instead = INSTEAD.exec(sentence);
  const notBut = instead ? null : NOT_BUT.exec(sentence);
  const [right, wrong] = instead ? [instead[1], instead[2]] : notBut ? [notBut[2], notBut[1]] : [];
  if (!right || !wrong) return [];
  const [said, before] = [ordinal(right.replace(/[.,;:!?]+$/, "")), ordinal(wrong.replace(/[.,;:!?]+$/, ""))];
  const held = [...input.known.values()].findLast((item) => holds(item, before));
  return held ? restated(input, held, before, said) : [];
};

function holds(item: KnownFact, words: string): boolean {
  const pattern = new RegExp(`\\b${escaped(words)}\\b`, "i");
  return pattern.test(item.content) || pattern.test(JSON.stringify(item.value));
}

/** The held fact with the wrong words swapped for the right ones; a key made of the wrong name moves to the right one. */
function restated(input: RuleInput, held: KnownFact, wrong: string, right: string): ExtractedFact[] {
  const swap = (text: string) => text.replace(new RegExp(`\\b${escaped(wrong)}\\b`, "gi"), right);
  const value = typeof held.value === "string" ? swap(held.value) : JSON.parse(swap(JSON.stringify(held.value)));
  const renamed = held.key.endsWith(`:${nameKey(wrong)}`) ? `${held.key.slice(0, -nameKey(wrong).length)}${nameKey(right)}` : held.key;
  const content = swap(held.content);
  // The held sentence was built from parts; the swap keeps its one predicate, with the right value as its object.
  const [subject, rest] = [content.slice(0, content.indexOf(" ")), content.slice(content.indexOf(" ") + 1).replace(/\.$/, "")];
  return [
    ...(renamed === held.key ? [] : fact(input, { key: held.key, value: content, subject, predicate: rest, operation: "DELETE" })),
    ...fact(input, { key: renamed, value, subject, predicate: rest, operation: "CORRECT" }),
  ];
}
