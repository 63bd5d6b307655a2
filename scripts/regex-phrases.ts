/**
 * The literal word runs a regular expression matches, for measuring how much of a rule is a phrase
 * rather than grammar. A small reader of the pattern: alternations and groups are expanded (up to
 * `LIMIT` strings), optional parts both ways, and whatever is not a literal character — a class, a
 * property escape, a wildcard — breaks a run. Tolerant of fragments (`new RegExp` pieces).
 */
const BREAK = "\u0000";
const LIMIT = 2000;

type Node = { strings: string[] };

/** How many `|` a pattern holds outside character classes, escapes not counted. */
export function regexAlternatives(pattern: string): number {
  let count = 0;
  let inClass = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === "\\") index += 1;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (char === "|") count += 1;
  }
  return count;
}

/**
 * The distinct runs of two or more words (lower case) that a pattern matches literally.
 *
 * @example
 * regexPhrases("\\bI (?:just )?(?:moved|relocated) to\\s+(.+)$"); // ["i just moved to", "i moved to", "i just relocated to", "i relocated to"]
 */
export function regexPhrases(pattern: string): string[] {
  const reader = { pattern, at: 0 };
  const strings: string[] = [];
  // A stray ")" (a fragment's) ends one alternation: read on after it.
  while (reader.at < pattern.length) {
    strings.push(...alternation(reader).strings);
    reader.at += 1;
  }
  const phrases = new Set<string>();
  for (const string of strings)
    for (const part of string.split(BREAK))
      for (const run of part.split(/[^\p{L}\p{N}' -]+/u)) {
        const words = run.toLowerCase().trim().split(/\s+/).filter(Boolean);
        if (words.length >= 2) phrases.add(words.join(" "));
      }
  return [...phrases];
}

interface Reader {
  pattern: string;
  at: number;
}

function alternation(reader: Reader): Node {
  const strings: string[] = [];
  for (;;) {
    strings.push(...sequence(reader).strings);
    if (reader.pattern[reader.at] !== "|") return { strings: strings.slice(0, LIMIT) };
    reader.at += 1;
  }
}

function sequence(reader: Reader): Node {
  let strings = [""];
  while (reader.at < reader.pattern.length && reader.pattern[reader.at] !== "|" && reader.pattern[reader.at] !== ")") {
    const item = quantified(reader, atom(reader));
    const next: string[] = [];
    for (const head of strings) for (const tail of item.strings) if (next.length < LIMIT) next.push(head + tail);
    strings = next;
  }
  return { strings };
}

function atom(reader: Reader): Node {
  const { pattern } = reader;
  const char = pattern[reader.at] as string;
  reader.at += 1;
  if (char === "(") {
    const lookaround = /^\?(?:=|!|<=|<!)/.exec(pattern.slice(reader.at));
    const named = /^\?(?::|<[\w$]+>)/.exec(pattern.slice(reader.at));
    reader.at += (lookaround ?? named)?.[0].length ?? 0;
    const inner = alternation(reader);
    if (pattern[reader.at] === ")") reader.at += 1;
    return lookaround ? { strings: [""] } : inner;
  }
  if (char === "[") {
    let end = reader.at;
    while (end < pattern.length && pattern[end] !== "]") end += pattern[end] === "\\" ? 2 : 1;
    const members = pattern.slice(reader.at, end);
    reader.at = end + 1;
    // An apostrophe of either kind, or a letter spelt two ways ("[ée]"), is one character.
    if (/^['’‘]+$/.test(members)) return { strings: ["'"] };
    if (/^\p{L}+$/u.test(members)) return { strings: [members[0] as string] };
    return { strings: [BREAK] };
  }
  if (char === "\\") {
    const escaped = pattern[reader.at] as string;
    reader.at += 1;
    if (escaped === "p" || escaped === "P") {
      if (pattern[reader.at] === "{") reader.at = pattern.indexOf("}", reader.at) + 1 || pattern.length;
      return { strings: [BREAK] };
    }
    if (escaped === "b" || escaped === "B") return { strings: [""] };
    if (escaped === "s") return { strings: [" "] };
    if (/[SwWdDnrt]/.test(escaped)) return { strings: [BREAK] };
    return { strings: [escaped] };
  }
  if (char === "^" || char === "$") return { strings: [""] };
  if (char === ".") return { strings: [BREAK] };
  return { strings: [char] };
}

function quantified(reader: Reader, node: Node): Node {
  const rest = reader.pattern.slice(reader.at);
  const quantifier = /^(?:[?*+]|\{(\d*)(?:,(\d*))?\})\??/.exec(rest);
  if (!quantifier) return node;
  reader.at += quantifier[0].length;
  const optional = quantifier[0].startsWith("?") || quantifier[0].startsWith("*") || quantifier[1] === "0";
  return optional ? { strings: [...node.strings, ""].slice(0, LIMIT) } : node;
}
