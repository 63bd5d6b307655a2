import type { EvaluationText } from "./evaluation-texts.js";

/** How many consecutive words of an evaluation text a test string may not share with it. */
export const SHARED_RUN = 6;

/**
 * Whole evaluation sentences shorter than this are too common to belong to a data set ("Thank
 * you.", "Me too!"): a test string equal to one of them is not a copy.
 */
export const SHORTEST_OWNED_SENTENCE = 3;

/** A string of a test, where it is. */
export interface TestString {
  file: string;
  line: number;
  text: string;
}

/** A test string that equals an evaluation sentence or shares `SHARED_RUN` consecutive words with one. */
export interface Overlap {
  test: TestString;
  source: string;
  /** The shared words, or the whole sentence when the test string equals it. */
  words: string;
  equal: boolean;
}

/**
 * The words of a text as the check compares them: lower case, curly apostrophes made straight,
 * punctuation dropped ("Don't!" → "don't").
 *
 * @example
 * comparedWords("I’m moving to Oslo, finally."); // ["i'm", "moving", "to", "oslo", "finally"]
 */
export function comparedWords(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[‘’ʼ`]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? []
  );
}

const sentencesOf = (text: string) => text.split(/(?<=[.!?…])\s+|\n+/);

/**
 * The test strings that equal an evaluation sentence (of at least `SHORTEST_OWNED_SENTENCE`
 * words) or contain `SHARED_RUN` consecutive words of an evaluation text. The runs of the test
 * strings are indexed first (they are few), then each evaluation text is read once.
 *
 * @example
 * findOverlaps([{ file: "a.test.ts", line: 3, text: "Then I flew a red kite over the dunes" }], [{ source: "set", text: "I flew a red kite over the bay." }]);
 * // → [{ words: "i flew a red kite over", equal: false, … }]
 */
export function findOverlaps(tests: readonly TestString[], evaluation: Iterable<EvaluationText>): Overlap[] {
  const runs = new Map<string, TestString[]>();
  const whole = new Map<string, TestString[]>();
  const index = (map: Map<string, TestString[]>, key: string, test: TestString) => map.set(key, [...(map.get(key) ?? []), test]);
  for (const test of tests) {
    const words = comparedWords(test.text);
    if (words.length >= SHORTEST_OWNED_SENTENCE) index(whole, words.join(" "), test);
    for (let start = 0; start + SHARED_RUN <= words.length; start += 1) index(runs, words.slice(start, start + SHARED_RUN).join(" "), test);
  }
  const found = new Map<string, Overlap>();
  const record = (test: TestString, source: string, words: string, equal: boolean) => {
    const key = `${test.file}:${test.line}:${test.text}`;
    if (!found.has(key)) found.set(key, { test, source, words, equal });
  };
  for (const { source, text } of evaluation) {
    const words = comparedWords(text);
    for (let start = 0; start + SHARED_RUN <= words.length; start += 1) {
      const run = words.slice(start, start + SHARED_RUN).join(" ");
      for (const test of runs.get(run) ?? []) record(test, source, run, false);
    }
    for (const sentence of [text, ...sentencesOf(text)]) {
      const said = comparedWords(sentence);
      if (said.length < SHORTEST_OWNED_SENTENCE) continue;
      for (const test of whole.get(said.join(" ")) ?? []) record(test, source, said.join(" "), true);
    }
  }
  return [...found.values()];
}
