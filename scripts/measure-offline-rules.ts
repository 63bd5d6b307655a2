import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSync } from "@swc/core";
import { type EvaluationText, projectEvaluationTexts, sharedDataDir, sharedDataTexts } from "../src/eval/evaluation-texts.js";
import { comparedWords } from "../src/eval/sentence-overlap.js";
import { offlineRuleFiles, REPOSITORY } from "./offline-rule-files.js";
import { regexAlternatives, regexPhrases } from "./regex-phrases.js";
import { scriptArgs } from "./script-args.js";

/**
 * `npx tsx scripts/measure-offline-rules.ts [--phrases] [--json]`: the size of the offline reader —
 * the modules its entry points import (scripts/offline-rule-files.ts) — in lines, regular
 * expressions and their alternatives, and the multi-word phrases of its code (literal word runs of
 * its regular expressions and strings) that occur word for word in the sentences the fact sets
 * score (src/eval: the labelled, unseen and case sets) and in the shared development data
 * (with `--shared`, a few minutes). Comments are not code: swc's syntax tree holds none.
 */
const { values } = scriptArgs("npx tsx scripts/measure-offline-rules.ts [--phrases] [--json]", {
  options: {
    phrases: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    shared: { type: "boolean", default: false },
  },
});

interface FileMeasure {
  file: string;
  lines: number;
  codeLines: number;
  regexes: number;
  alternatives: number;
  phrases: Set<string>;
}

function measure(file: string): FileMeasure {
  const source = readFileSync(join(REPOSITORY, file), "utf8");
  const lines = source.split("\n");
  const measured: FileMeasure = {
    file,
    lines: lines.length - (source.endsWith("\n") ? 1 : 0),
    codeLines: lines.filter((line) => line.trim() !== "" && !/^\s*(?:\/\/|\/\*|\*)/.test(line)).length,
    regexes: 0,
    alternatives: 0,
    phrases: new Set(),
  };
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    if (record["type"] === "RegExpLiteral") {
      measured.regexes += 1;
      measured.alternatives += regexAlternatives(record["pattern"] as string) + 1;
      for (const phrase of regexPhrases(record["pattern"] as string)) measured.phrases.add(phrase);
    }
    if (record["type"] === "NewExpression" && (record["callee"] as { value?: string }).value === "RegExp") measured.regexes += 1;
    const literal =
      record["type"] === "StringLiteral"
        ? (record["value"] as string)
        : record["type"] === "TemplateElement"
          ? (record["raw"] as string)
          : null;
    if (literal !== null) {
      // A string with an alternation or an escape is a piece of a regular expression (`new RegExp(…)`).
      if (/\||\\[bsp]|\(\?:/.test(literal)) {
        measured.alternatives += regexAlternatives(literal);
        for (const phrase of regexPhrases(literal)) measured.phrases.add(phrase);
      } else {
        const words = comparedWords(literal);
        // Two to six words: a phrase; longer strings are lists split into words, or messages.
        if (words.length >= 2 && words.length <= 6 && /^[\p{L}' -]+$/u.test(literal.trim())) measured.phrases.add(words.join(" "));
      }
    }
    for (const [field, value] of Object.entries(record)) if (field !== "span") visit(value);
  };
  visit(parseSync(source, { syntax: "typescript" }));
  return measured;
}

/** The phrases that occur word for word (whole words) in the texts, with how many texts each occurs in. */
function occurrences(phrases: Set<string>, texts: EvaluationText[]): Map<string, number> {
  const said = texts.map((text) => ` ${comparedWords(text.text).join(" ")} `);
  const counts = new Map<string, number>();
  for (const phrase of phrases) {
    const needle = ` ${phrase} `;
    const count = said.filter((text) => text.includes(needle)).length;
    if (count > 0) counts.set(phrase, count);
  }
  return counts;
}

const files = offlineRuleFiles().map(measure);
const phrases = new Set(files.flatMap((file) => [...file.phrases]));
const project = await projectEvaluationTexts();
const { dir, present } = sharedDataDir();
const searchShared = values.shared && present;
const shared = searchShared ? await sharedDataTexts(dir) : [];
const inSets = occurrences(phrases, project);
const inShared = occurrences(phrases, shared);
const total = (field: "lines" | "codeLines" | "regexes" | "alternatives") => files.reduce((sum, file) => sum + file[field], 0);
const summary = {
  files: files.length,
  lines: total("lines"),
  codeLines: total("codeLines"),
  regexes: total("regexes"),
  alternatives: total("alternatives"),
  phrases: phrases.size,
  phrasesInFactSetSentences: inSets.size,
  phrasesInOneFactSetSentence: [...inSets.values()].filter((count) => count === 1).length,
  factSetSentences: project.length,
  phrasesInSharedData: searchShared ? inShared.size : null,
};
if (values.json) console.log(JSON.stringify({ summary, files: files.map(({ phrases: _, ...file }) => file) }, null, 2));
else {
  console.log(
    `${"file".padEnd(58)} ${"lines".padStart(5)} ${"code".padStart(5)} ${"regex".padStart(5)} ${"alts".padStart(5)} ${"phr".padStart(4)}`,
  );
  for (const file of files)
    console.log(
      `${file.file.padEnd(58)} ${String(file.lines).padStart(5)} ${String(file.codeLines).padStart(5)} ${String(file.regexes).padStart(5)} ${String(file.alternatives).padStart(5)} ${String(file.phrases.size).padStart(4)}`,
    );
  console.log(
    `\n${summary.files} files, ${summary.lines} lines (${summary.codeLines} of code), ${summary.regexes} regular expressions with ${summary.alternatives} alternatives, ${summary.phrases} distinct multi-word phrases`,
  );
  console.log(
    `${summary.phrasesInFactSetSentences} of the phrases occur word for word in the ${summary.factSetSentences} sentences of the project's fact and case sets (${summary.phrasesInOneFactSetSentence} in exactly one)`,
  );
  if (searchShared) console.log(`${inShared.size} occur in the shared development data (${dir})`);
}
if (values.phrases)
  for (const [phrase, count] of [...inSets].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))) console.log(`  ${count}\t${phrase}`);
