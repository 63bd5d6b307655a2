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

export function bpeTokenizer(name: string, encoding: BpeEncoding): Tokenizer {
  return {
    name,
    count: (text) => (text.length === 0 ? 0 : encoding.countTokens(text)),
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
