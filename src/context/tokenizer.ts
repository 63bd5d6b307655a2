/**
 * Token counting with a real BPE tokenizer (o200k_base via gpt-tokenizer, pure JS). Gemini's own
 * tokenizer is not published for offline use; o200k is the closest widely used vocabulary, and
 * budgets are enforced against this count exactly.
 */
export interface Tokenizer {
  readonly name: string;
  count(text: string): number;
  /** The longest prefix of `text` that fits in `maxTokens`, cut back to a word boundary. */
  truncate(text: string, maxTokens: number): string;
}

/** What a gpt-tokenizer encoding offers (the bundled o200k module, or one built from its ranks). */
export interface BpeEncoding {
  countTokens(text: string): number;
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

/**
 * Counts of short texts kept, most recently used first. A context window counts every candidate
 * memory (twice: each section is filled, then offered what the others left), and an agent's next
 * window recalls mostly the same memories, so most counts are found here instead of made afresh.
 * Longer texts (a whole section, the prompt) are rarely
 * counted twice and are not kept. At most ~5 MB.
 */
const COUNT_CACHE = { entries: 10_000, maxChars: 500 };

export function bpeTokenizer(name: string, encoding: BpeEncoding): Tokenizer {
  const counts = new Map<string, number>();
  const count = (text: string): number => {
    if (text.length === 0) return 0;
    if (text.length > COUNT_CACHE.maxChars) return encoding.countTokens(text);
    const known = counts.get(text);
    if (known !== undefined) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      counts.delete(text);
      counts.set(text, known);
      return known;
    }
    const counted = encoding.countTokens(text);
    counts.set(text, counted);
    if (counts.size > COUNT_CACHE.entries) counts.delete(counts.keys().next().value as string);
    return counted;
  };
  return {
    name,
    count,
    truncate(text, maxTokens) {
      if (maxTokens <= 0) return "";
      const tokens = encoding.encode(text);
      if (tokens.length <= maxTokens) return text;
      let prefix = encoding.decode(tokens.slice(0, maxTokens));
      // A cut inside a multi-byte character decodes to U+FFFD; never emit half a character.
      prefix = prefix.replace(/\uFFFD+$/u, "");
      const lastSpace = prefix.search(/\s\S*$/u);
      return (lastSpace > 0 ? prefix.slice(0, lastSpace) : prefix).trimEnd();
    },
  };
}
