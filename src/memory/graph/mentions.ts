import { nameKey } from "../../vocabulary/entity-names.js";
import { isVocative } from "../../vocabulary/vocatives.js";
import type { SourceRef } from "../provenance.js";
import type { EntityIndex, KnownNode } from "./entity-index.js";

/** The longest name, in words, looked for in a text. */
const MAX_NAME_WORDS = 5;

/** A mention of an entity in one event, by the name written there. */
export interface Mention {
  entityId: string;
  source: SourceRef;
  at: Date;
  surface: string;
}

/**
 * The entities an event's text names: every run of up to five words whose folded form is a name
 * of one of the user's entities ("Maya won the spelling bee" mentions Maya). A person, pet, place
 * or organisation is named with a capital ("may" is not May); a name of several words is found
 * however it is written. A name that addresses the listener ("Thanks, Maya!") speaks to them, not
 * of them, and is no mention; nor is a name several entities share, which cannot tell them apart.
 */
export function mentionsIn(text: string, source: SourceRef, at: Date, index: EntityIndex): Mention[] {
  const words = [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu)].map((match) => ({
    raw: (match[0] as string).replace(/['’]s$/, "").replace(/[.'’-]+$/, ""),
    start: match.index ?? 0,
  }));
  const found = new Map<string, Mention>();
  for (let first = 0; first < words.length; first++) {
    for (let length = Math.min(MAX_NAME_WORDS, words.length - first); length >= 1; length--) {
      const run = words.slice(first, first + length);
      const surface = text.slice(run[0]?.start ?? 0, (run.at(-1)?.start ?? 0) + (run.at(-1)?.raw.length ?? 0));
      const nodes = index.withKey(nameKey(surface));
      if (nodes.size !== 1) continue;
      const node = [...nodes][0] as KnownNode;
      if (!namedHere(node, surface, length, text, run[0]?.start ?? 0)) continue;
      const key = `${node.id}|${surface}`;
      if (!found.has(key)) found.set(key, { entityId: node.id, source, at, surface });
      first += length - 1;
      break;
    }
  }
  return [...found.values()];
}

const PROPER_KINDS = new Set(["person", "pet", "place", "organisation"]);

function namedHere(node: KnownNode, surface: string, words: number, text: string, start: number): boolean {
  if (node.self) return false;
  if (PROPER_KINDS.has(node.kind) && !/^\p{Lu}/u.test(surface) && words === 1) return false;
  if (
    (node.kind === "person" || node.kind === "pet") &&
    isVocative(sentenceAround(text, start), start - sentenceStart(text, start), surface.length)
  )
    return false;
  return true;
}

function sentenceStart(text: string, at: number): number {
  const before = text.slice(0, at);
  const end = Math.max(before.lastIndexOf(". "), before.lastIndexOf("! "), before.lastIndexOf("? "), before.lastIndexOf("\n"));
  return end < 0 ? 0 : end + 2;
}

function sentenceAround(text: string, at: number): string {
  const start = sentenceStart(text, at);
  const rest = text.slice(start);
  const end = rest.search(/[.!?](?:\s|$)|\n/);
  return end < 0 ? rest : rest.slice(0, end);
}
