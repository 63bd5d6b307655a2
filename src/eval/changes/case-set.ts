import { readFile } from "node:fs/promises";
import { z } from "zod";
import { escapeRegExp } from "../../util/escape-regexp.js";
import { issuesLine } from "../../util/issues-line.js";

/**
 * A change of state said inside a long history: a first statement, a later one that ends it (in
 * words of its own), a question about the attribute asked at the end, and the words that mark
 * each state in a window's text.
 */
export interface ChangeCase {
  kind: "case";
  id: string;
  first: string;
  change: string;
  question: string;
  old: RegExp;
  new: RegExp;
}

/** A state said once and mentioned again later without changing: the window must keep it. */
export interface ControlCase {
  kind: "control";
  id: string;
  first: string;
  later: string;
  question: string;
  holds: RegExp;
}

export type HistoryCase = ChangeCase | ControlCase;

const Words = z
  .string()
  .min(1)
  .transform(
    (alternatives) =>
      new RegExp(
        alternatives
          .split("|")
          .map((word) => escapeRegExp(word.trim()))
          .join("|"),
        "i",
      ),
  );

const ChangeSchema = z.object({
  kind: z.literal("case"),
  id: z.string().min(1),
  first: z.string().min(1),
  change: z.string().min(1),
  question: z.string().min(1),
  old: Words,
  new: Words,
});
const ControlSchema = z.object({
  kind: z.literal("control"),
  id: z.string().min(1),
  first: z.string().min(1),
  later: z.string().min(1),
  question: z.string().min(1),
  holds: Words,
});
const CaseSchema = z.discriminatedUnion("kind", [ChangeSchema, ControlSchema]);

/**
 * Parses a case set: `@case <id>` or `@control <id>`, then `field: text` lines; `#` starts a comment.
 *
 * @example
 * parseCaseSet("@control c1\nfirst: I live in Oslo.\nlater: Oslo was cold.\nquestion: Where do I live?\nholds: oslo")
 */
export function parseCaseSet(text: string): HistoryCase[] {
  const raw: Record<string, string>[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const opening = /^@(case|control)\s+(\S+)$/.exec(trimmed);
    if (opening) {
      raw.push({ kind: opening[1] as string, id: opening[2] as string });
      continue;
    }
    const field = /^([a-z]+):\s*(.*)$/.exec(trimmed);
    const current = raw.at(-1);
    if (!field || !current) throw new Error(`line ${index + 1}: expected "@case <id>", "@control <id>" or "field: text"`);
    current[field[1] as string] = field[2] as string;
  }
  return raw.map((entry) => {
    const parsed = CaseSchema.safeParse(entry);
    if (!parsed.success) throw new Error(`${entry["id"]}: ${issuesLine(parsed.error)}`);
    return parsed.data;
  });
}

export async function loadCaseSet(path: string): Promise<HistoryCase[]> {
  return parseCaseSet(await readFile(path, "utf8"));
}
