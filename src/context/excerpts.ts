import { contentStems } from "../util/content-words.js";
import type { Tokenizer } from "./tokenizer.js";

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

/** How long memories are cut to the sentences that answer a query (CONTEXT_EXCERPT_TOKENS). */
export interface ExcerptOptions {
  /** Most tokens of an excerpt; a memory no longer than this is packed whole. 0 packs every memory whole. */
  maxTokens: number;
  /**
   * Only sentences that hold a query word when one does: one too long for the room is cut at a word
   * rather than left for sentences that hold none. For excerpts as short as a note, where the one
   * sentence that answers is often longer than the room.
   */
  matchingOnly?: boolean;
}

/** A memory's text as a window packs it. */
export interface Excerpt {
  text: string;
  /** Sentences were left out: the whole memory is one expand call away (`POST /v1/memories/expand`). */
  excerpt: boolean;
}

interface Sentence {
  text: string;
  order: number;
  tokens: number;
  matched: number;
}

/**
 * A long memory cut to the sentences that carry the query's words, in their order, within
 * `maxTokens`: a 400-token reply that mentions the asked-about thing once costs its sentence, not
 * its whole length, and the room goes to more evidence. Sentences are taken by how many of the
 * query's content words they hold (then the earlier first), and a gap between kept sentences is
 * marked "…". A memory found by meaning alone (no sentence holds a query word) keeps its opening
 * sentences. The speaker's label ("user: ") stays in front. A memory that fits is returned whole.
 *
 * @example
 * excerptOf("user: We got back from Crete. The kids loved it. Our dog stayed with my sister.", contentStems("Who looked after my dog?"), tokenizer, { maxTokens: 12 });
 * // { text: "user: … Our dog stayed with my sister.", excerpt: true }
 */
export function excerptOf(text: string, query: ReadonlySet<string>, tokenizer: Tokenizer, options: ExcerptOptions): Excerpt {
  if (options.maxTokens <= 0 || tokenizer.count(text) <= options.maxTokens) return { text, excerpt: false };
  const label = /^[\w .'-]{1,40}: /.exec(text)?.[0] ?? "";
  const sentences = splitSentences(text.slice(label.length)).map((sentence, order) => ({
    text: sentence,
    order,
    tokens: tokenizer.count(`${sentence} `),
    matched: [...contentStems(sentence)].filter((stem) => query.has(stem)).length,
  }));
  const room = options.maxTokens - tokenizer.count(label) - 2;
  const kept = chooseSentences(sentences, room, options.matchingOnly ?? false);
  if (kept.length === 0) {
    // Not one whole sentence fits: the best one, cut at a word.
    const best = bestFirst(sentences)[0];
    return { text: `${label}${best ? `${tokenizer.truncate(best.text, Math.max(room, 1)).trimEnd()}…` : ""}`, excerpt: true };
  }
  return { text: `${label}${render(kept, sentences.length)}`, excerpt: true };
}

/** The query's content words, as `excerptOf` matches them. */
export const queryWords = (query: string): Set<string> => contentStems(query);

function splitSentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => [...SENTENCES.segment(line)].map((segment) => segment.segment.trim()))
    .filter((sentence) => sentence !== "");
}

const bestFirst = (sentences: Sentence[]) => [...sentences].sort((a, b) => b.matched - a.matched || a.order - b.order);

/** The best sentences that fit `room` tokens together, in their order (`matchingOnly`: see `ExcerptOptions`). */
function chooseSentences(sentences: Sentence[], room: number, matchingOnly: boolean): Sentence[] {
  const kept: Sentence[] = [];
  let used = 0;
  const anyMatch = sentences.some((sentence) => sentence.matched > 0);
  for (const sentence of bestFirst(sentences)) {
    // Once the matching sentences are in, the rest only when nothing matched at all (the opening).
    if (anyMatch && sentence.matched === 0 && (kept.length > 0 || matchingOnly)) break;
    if (used + sentence.tokens > room) continue;
    kept.push(sentence);
    used += sentence.tokens;
  }
  return kept.sort((a, b) => a.order - b.order);
}

function render(kept: Sentence[], total: number): string {
  const parts: string[] = [];
  let next = 0;
  for (const sentence of kept) {
    if (sentence.order > next) parts.push("…");
    parts.push(sentence.text);
    next = sentence.order + 1;
  }
  if (next < total) parts.push("…");
  return parts.join(" ");
}
