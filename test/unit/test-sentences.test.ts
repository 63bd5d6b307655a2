import { describe, expect, it } from "vitest";
import { changeSetTexts, projectEvaluationTexts, sharedDataDir, sharedDataTexts } from "../../src/eval/evaluation-texts.js";
import { findOverlaps, type Overlap, SHARED_RUN } from "../../src/eval/sentence-overlap.js";
import { stringsOf, testFiles } from "../fixtures/test-strings.js";

/**
 * No test is written from a sentence the project scores: no string of a test file (`*.test.ts`
 * anywhere, and everything under test/) equals an evaluation sentence or holds six consecutive
 * words of one — the project's fact, case and change sets under src/eval/, and the shared development data
 * (`../shared/data`, or EVAL_DATA_DIR). Outside CI, the shared part is skipped with one line when
 * the directory is absent; in CI its absence fails.
 */
const strings = testFiles().flatMap(stringsOf);
const described = (found: Overlap[]) =>
  found.map(
    (overlap) =>
      `${overlap.test.file}:${overlap.test.line} ${JSON.stringify(overlap.test.text.slice(0, 80))} ${overlap.equal ? "equals" : "shares"} "${overlap.words}" (${overlap.source})`,
  );

describe(`test strings share no run of ${SHARED_RUN} words with an evaluation sentence`, () => {
  it("reads the strings of every test file", () => {
    expect(strings.length).toBeGreaterThan(1000);
    expect(new Set(strings.map((found) => found.file))).toContain("test/unit/test-sentences.test.ts");
  });

  it("finds a shared run and an equal sentence (the check can fail)", () => {
    const planted = [
      { file: "planted.test.ts", line: 1, text: "prefix words then one two three four five six" },
      { file: "planted.test.ts", line: 2, text: "Seven, eight, nine!" },
      { file: "planted.test.ts", line: 3, text: "one two three four five" },
    ];
    const found = findOverlaps(planted, [
      { source: "set", text: "Before: One two three FOUR five six, after." },
      { source: "set", text: "seven eight nine" },
    ]);
    expect(found.map((overlap) => [overlap.test.line, overlap.equal])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("against the project's fact and case sets (src/eval/facts)", async () => {
    const texts = await projectEvaluationTexts();
    expect(texts.length).toBeGreaterThan(1000);
    expect(described(findOverlaps(strings, texts))).toEqual([]);
  });

  it("against the change-of-state sets said inside long histories (src/eval/changes)", async () => {
    const texts = await changeSetTexts();
    expect(new Set(texts.map((text) => text.source))).toContain("changes/tuning.txt");
    expect(described(findOverlaps(strings, texts))).toEqual([]);
  });

  it("against the shared development data (LoCoMo and LongMemEval dev)", async () => {
    const { dir, present } = sharedDataDir();
    if (!present) {
      if (process.env["CI"] === "true") throw new Error(`the shared data is not at ${dir}: CI must check the tests against it`);
      console.log(`skipped the shared-data part of the test-sentence check: no data at ${dir} (set EVAL_DATA_DIR)`);
      return;
    }
    const texts = await sharedDataTexts(dir);
    expect(texts.length).toBeGreaterThan(10_000);
    expect(described(findOverlaps(strings, texts))).toEqual([]);
  }, 120_000);
});
