import { readFile } from "node:fs/promises";
import { KINDS, type Kind } from "./taxonomy.js";

/**
 * One fact a careful reader records from a turn: its kinds (the first is the one recall is
 * counted under) and the words its content must hold — one word of every group.
 */
export interface FactLabel {
  id: string;
  kinds: Kind[];
  /** Every group must match; a group matches when the content holds any of its words. */
  groups: string[][];
}

export interface LabelledTurn {
  id: string;
  /** The message itself for sets written inline; read from the data set otherwise. */
  text?: string;
  facts: FactLabel[];
  /** Ids of earlier facts this turn ends, changes or corrects. */
  closes: string[];
}

export interface LabelledStream {
  source: string;
  /** A speaker, a LongMemEval question or session, or a fresh case. */
  name: string;
  turns: LabelledTurn[];
}

export interface LabelledFile {
  source: string;
  /** What locates the data: a LoCoMo file name, "questions.jsonl.gz", or the fresh set's name. */
  location: string;
  streams: LabelledStream[];
}

/**
 * Reads a labelled file (the format is described at the top of each file under
 * src/eval/facts/labelled/): `@source`, `@stream`, `<turn id> items`, or `> message` followed by
 * indented items; items are `kind[/kind] "words|alternatives" ["more"] [#id]` or `closes #a, #b`,
 * separated by ` ; `. Throws on any line it cannot read, naming the file and line.
 *
 * @example
 * const { streams } = parseLabelledFile('@source fresh kinds\n@stream a\n> I knit.\n  hobbies "knit"', "x.txt");
 * // streams[0].turns[0] → { id: "a#1", text: "I knit.", facts: [{ kinds: ["hobbies"], groups: [["knit"]] }], closes: [] }
 */
export function parseLabelledFile(text: string, fileName: string): LabelledFile {
  let source = "";
  let location = "";
  const streams: LabelledStream[] = [];
  let stream: LabelledStream | undefined;
  let inline: LabelledTurn | undefined;
  const ids = new Set<string>();
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    const where = `${fileName}:${index + 1}`;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    if (trimmed.startsWith("@source ")) {
      [source = "", location = ""] = trimmed.slice("@source ".length).split(/\s+/, 2);
      return;
    }
    if (trimmed.startsWith("@stream ")) {
      stream = { source, name: trimmed.slice("@stream ".length).trim(), turns: [] };
      streams.push(stream);
      inline = undefined;
      return;
    }
    if (!stream) throw new Error(`${where}: a turn before any @stream`);
    if (trimmed.startsWith("> ")) {
      inline = { id: `${stream.name}#${stream.turns.length + 1}`, text: trimmed.slice(2), facts: [], closes: [] };
      stream.turns.push(inline);
      return;
    }
    const indented = /^\s/.test(line);
    if (indented && !inline) throw new Error(`${where}: items with no "> message" above them`);
    const turn: LabelledTurn = indented ? (inline as LabelledTurn) : { id: trimmed.split(/\s+/, 1)[0] as string, facts: [], closes: [] };
    if (!indented) {
      inline = undefined;
      stream.turns.push(turn);
    }
    const items = indented ? trimmed : trimmed.slice(turn.id.length).trim();
    for (const item of items.split(/\s+;\s+/)) readItem(item.trim(), turn, ids, where);
  });
  return { source, location, streams };
}

function readItem(item: string, turn: LabelledTurn, ids: Set<string>, where: string): void {
  const closes = /^closes\s+(#[\w-]+(?:\s*,\s*#[\w-]+)*)$/.exec(item);
  if (closes) {
    turn.closes.push(...(closes[1] as string).split(/\s*,\s*/).map((id) => id.slice(1)));
    return;
  }
  const match = /^([a-z/]+)((?:\s+"[^"]+")+)(?:\s+#([\w-]+))?$/.exec(item);
  if (!match) throw new Error(`${where}: cannot read "${item}"`);
  const kinds = (match[1] as string).split("/");
  const unknown = kinds.filter((kind) => !(KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`${where}: unknown kind ${unknown.join(", ")}`);
  const groups = [...(match[2] as string).matchAll(/"([^"]+)"/g)].map((group) => (group[1] as string).split("|"));
  const id = match[3] ?? `${turn.id}/${turn.facts.length + 1}`;
  if (ids.has(id)) throw new Error(`${where}: the id #${id} is used twice`);
  ids.add(id);
  turn.facts.push({ id, kinds: kinds as Kind[], groups });
}

export async function readLabelledFile(path: string): Promise<LabelledFile> {
  return parseLabelledFile(await readFile(path, "utf8"), path.split("/").at(-1) as string);
}

/** Whether a fact's content says what the label records: one word of every group, case-insensitive. */
export function matchesLabel(content: string, label: FactLabel): boolean {
  const said = content.toLowerCase();
  return label.groups.every((group) => group.some((word) => said.includes(word.toLowerCase())));
}
