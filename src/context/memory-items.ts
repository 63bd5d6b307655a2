import type { RecalledMemory } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement } from "../memory/recall/later-statements.js";
import { supersededMarker } from "../memory/recall/superseded.js";
import { contentStems } from "../util/content-words.js";
import { excerptOf } from "./excerpts.js";
import type { CandidateSection } from "./pack.js";
import type { Tokenizer } from "./tokenizer.js";

type Item = CandidateSection["items"][number];

/** What every memory item of a window is rendered with. */
export interface ItemRendering {
  tokenizer: Tokenizer;
  /** The question's content words: a long memory is cut to the sentences holding them. */
  asked: ReadonlySet<string>;
  /** Most tokens of a memory packed whole (0: all whole). */
  excerptTokens: number;
  /** An excerpt shows only sentences that hold the question's words when one does (`ExcerptOptions.matchingOnly`). */
  matchingOnly?: boolean;
  /** Most tokens of a later statement shown beside a statement. */
  laterTokens: number;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * A recalled memory as a window item, under the day it was said: cut to an excerpt when long; an
 * episode whose statement was replaced says so; a fact said again says when it was last said; a
 * statement the user spoke of again later carries that later statement, dated, and its events.
 *
 * @example
 * memoryItem(fact, rendering, later); // { text: '- User lives in Leeds. [said later, on 2023-09-14: "… our place in Glasgow …"]', … }
 */
export function memoryItem(memory: RecalledMemory, rendering: ItemRendering, later?: LaterStatement): Item {
  const packed = excerptOf(memory.content, rendering.asked, rendering.tokenizer, {
    maxTokens: rendering.excerptTokens,
    matchingOnly: rendering.matchingOnly ?? false,
  });
  const parts = [memory.superseded ? `${supersededMarker(memory.superseded)} ${packed.text}` : packed.text];
  if (memory.type === "semantic" && day(memory.lastConfirmedAt) > day(memory.validAt))
    parts.push(`(said again on ${day(memory.lastConfirmedAt)})`);
  if (later) parts.push(laterNote(memory, later, rendering));
  return {
    text: `- ${parts.join(" ")}`,
    group: day(memory.validAt),
    memory_id: memory.id,
    ...(packed.excerpt ? { excerpt: true } : {}),
    sources: later ? [...memory.sources, ...later.sources] : memory.sources,
  };
}

/** The later statement, cut to the sentences that share words with the question or the statement. */
function laterNote(memory: RecalledMemory, later: LaterStatement, rendering: ItemRendering): string {
  const words = new Set([...rendering.asked, ...contentStems(memory.content)]);
  const said = later.content.replace(/^user: /, "");
  const cut = excerptOf(said, words, rendering.tokenizer, { maxTokens: rendering.laterTokens });
  return `[said later, on ${day(later.at)}: "${cut.text}"]`;
}
