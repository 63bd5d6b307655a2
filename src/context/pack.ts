import { DomainError } from "../errors.js";
import type { ContextItem, ContextSection, SectionKind } from "./schemas.js";
import type { Tokenizer } from "./tokenizer.js";

export interface CandidateSection {
  kind: SectionKind;
  title: string;
  /** Best first. For history that is newest first; it is rendered oldest first. */
  items: Omit<ContextItem, "tokens">[];
  /** Share of the budget left after required sections; unused shares flow to the others. */
  share: number;
  /** Required sections must fit whole or the request fails (422). */
  required?: boolean;
  /** Render items in reverse of their candidate order (history reads oldest to newest). */
  chronological?: boolean;
  /** Stop at the first item that does not fit instead of skipping it (history stays contiguous). */
  contiguous?: boolean;
  /**
   * Render items under one header line per `item.group` (a day, say), groups in ascending order,
   * instead of repeating the group on every item: a date prefix would cost half of a short item.
   */
  grouped?: boolean;
  /** Render after every other section (the current user message), whatever its priority. */
  renderLast?: boolean;
  /**
   * An item of this section whose source events are all in the items packed into that section, or
   * whose words are already there or earlier in this one, is left out: it would say nothing new
   * (a recalled turn that is also in the history).
   */
  yieldsTo?: SectionKind;
}

export interface PackResult {
  sections: ContextSection[];
  prompt: string;
  totalTokens: number;
  /** Memories left out because the section they yield to already said it (for the receipts). */
  repeated: string[];
}

/** Smallest truncated item worth keeping; below this a cut item is noise. */
const MIN_TRUNCATED_TOKENS = 24;

/** Packings tried with repeated items taken out before the last one drops what is left of them. */
const MAX_REPACKS = 3;

/**
 * Packs candidate sections into `budget` tokens. Required sections go first, then each section
 * fills up to its share, then leftovers are offered again in section order. The prompt is
 * re-counted whole at the end and trimmed item by item until it fits, so the returned total is
 * the tokenizer's exact count of the prompt and never exceeds the budget.
 *
 * No text is packed twice: an item of a section that `yieldsTo` another is left out when it would
 * repeat it, and the room it leaves goes to the next candidates.
 */
export function packSections(candidates: CandidateSection[], budget: number, tokenizer: Tokenizer): PackResult {
  let offered = candidates;
  const dropped: Candidate[] = [];
  const withDropped = (result: PackResult): PackResult => ({
    ...result,
    repeated: dropped.flatMap((item) => (item.memory_id ? [item.memory_id] : [])),
  });
  for (let round = 0; round < MAX_REPACKS; round++) {
    const packed = packOnce(offered, budget, tokenizer);
    const repeated = repeatedItems(offered, packed.chosen);
    if (repeated.size === 0) return withDropped(packed.result);
    dropped.push(...repeated);
    offered = offered.map((section) => ({ ...section, items: section.items.filter((item) => !repeated.has(item)) }));
  }
  // The last packing keeps what it chose, less what still repeats (the room it leaves stays free).
  const { chosen } = packOnce(offered, budget, tokenizer);
  const repeated = repeatedItems(offered, chosen);
  dropped.push(...repeated);
  for (const [kind, items] of chosen)
    chosen.set(
      kind,
      items.filter((item) => !repeated.has(item.origin)),
    );
  return withDropped(render(offered, withoutOrigins(chosen), tokenizer));
}

type Candidate = CandidateSection["items"][number];
/** A packed item and the candidate it was made from (a history turn may be cut). */
type Packed = ContextItem & { origin: Candidate };

/** An item's words, without the list marker a section puts before them. */
const wordsOf = (text: string) => text.replace(/^- /, "").trim();

/**
 * The candidates packed into a section that yields to another and say nothing new: all their
 * source events are in that section's packed items, or their very words are there or earlier in
 * their own section.
 */
function repeatedItems(candidates: CandidateSection[], chosen: Map<SectionKind, Packed[]>): Set<Candidate> {
  const repeated = new Set<Candidate>();
  for (const section of candidates) {
    if (!section.yieldsTo) continue;
    const other = chosen.get(section.yieldsTo) ?? [];
    const held = new Set(other.flatMap((item) => item.sources.map((source) => source.event_id)));
    const said = new Set(other.map((item) => wordsOf(item.text)));
    for (const item of chosen.get(section.kind) ?? []) {
      const words = wordsOf(item.text);
      if (said.has(words) || (item.sources.length > 0 && item.sources.every((source) => held.has(source.event_id))))
        repeated.add(item.origin);
      said.add(words);
    }
  }
  return repeated;
}

/** The packed items as the window shows them. */
const withoutOrigins = (chosen: Map<SectionKind, Packed[]>): Map<SectionKind, ContextItem[]> =>
  new Map([...chosen].map(([kind, items]) => [kind, items.map(({ origin: _origin, ...item }) => item)]));

function packOnce(
  candidates: CandidateSection[],
  budget: number,
  tokenizer: Tokenizer,
): { result: PackResult; chosen: Map<SectionKind, Packed[]> } {
  const chosen = new Map<SectionKind, Packed[]>(candidates.map((section) => [section.kind, []]));
  let remaining = budget;

  for (const section of candidates.filter((candidate) => candidate.required)) {
    const items = section.items.map((item) => ({ ...item, tokens: tokenizer.count(`${item.text}\n`), origin: item }));
    // The rendered block is counted whole: BPE merges make the sum of parts differ from it.
    const cost = tokenizer.count(renderBlock(section.title, items));
    if (cost > remaining) {
      throw new DomainError("unprocessable", `the ${section.kind} section needs ${cost} tokens but the budget is ${budget}`, {
        field: section.kind,
        needed: cost,
        budget,
      });
    }
    chosen.set(section.kind, items);
    remaining -= cost;
  }

  const optional = candidates.filter((candidate) => !candidate.required);
  const totalShare = optional.reduce((sum, section) => sum + section.share, 0) || 1;
  const used = new Map<SectionKind, number>();
  for (const section of optional) {
    const filled = fillSection(section, Math.floor((remaining * section.share) / totalShare), tokenizer);
    chosen.set(section.kind, filled.items);
    used.set(section.kind, filled.used);
  }
  // Shares a section did not need are offered to the sections in priority order.
  for (const section of optional) {
    const spare = remaining - [...used.values()].reduce((sum, value) => sum + value, 0);
    if (spare <= 0) break;
    const filled = fillSection(section, (used.get(section.kind) as number) + spare, tokenizer);
    chosen.set(section.kind, filled.items);
    used.set(section.kind, filled.used);
  }

  let result = render(candidates, withoutOrigins(chosen), tokenizer);
  // BPE merges across item boundaries can differ from the per-item sums; the whole prompt decides.
  while (result.totalTokens > budget && dropLowestPriority(candidates, chosen))
    result = render(candidates, withoutOrigins(chosen), tokenizer);
  return { result, chosen };
}

/** Greedy fill of one section up to `cap` tokens, header included. */
function fillSection(section: CandidateSection, cap: number, tokenizer: Tokenizer): { items: Packed[]; used: number } {
  const header = tokenizer.count(renderHeader(section.title));
  const items: Packed[] = [];
  const groups = new Set<string>();
  let used = 0;
  for (const item of section.items) {
    const groupCost = section.grouped && item.group !== undefined && !groups.has(item.group) ? tokenizer.count(renderGroup(item.group)) : 0;
    const headerCost = (items.length === 0 ? header : 0) + groupCost;
    const tokens = tokenizer.count(`${item.text}\n`);
    if (used + headerCost + tokens <= cap) {
      items.push({ ...item, tokens, origin: item });
      if (item.group !== undefined) groups.add(item.group);
      used += headerCost + tokens;
      continue;
    }
    if (!section.contiguous) continue;
    // History stays contiguous: the turn that does not fit is cut at a sentence end (or, failing
    // that, a word boundary), then stop.
    const room = cap - used - headerCost - 1;
    if (room >= MIN_TRUNCATED_TOKENS) {
      const text = `${atSentenceEnd(tokenizer.truncate(item.text, room))}…`;
      const cut = tokenizer.count(`${text}\n`);
      if (used + headerCost + cut <= cap) {
        items.push({ ...item, text, tokens: cut, origin: item });
        used += headerCost + cut;
      }
    }
    break;
  }
  return { items, used };
}

/** Cuts a truncated text back to its last sentence end when that keeps most of it. */
export function atSentenceEnd(prefix: string): string {
  const lastEnd = Math.max(prefix.lastIndexOf(". "), prefix.lastIndexOf("! "), prefix.lastIndexOf("? "));
  return lastEnd >= prefix.length * 0.4 ? prefix.slice(0, lastEnd + 1) : prefix;
}

function renderHeader(title: string): string {
  return `## ${title}\n`;
}

function renderBlock(title: string, items: { text: string; group?: string }[], grouped = false): string {
  if (!grouped) return `${renderHeader(title)}${items.map((item) => item.text).join("\n")}\n`;
  const lines: string[] = [];
  let current: string | undefined;
  for (const item of items) {
    if (item.group !== undefined && item.group !== current) {
      lines.push(renderGroup(item.group).trimEnd());
      current = item.group;
    }
    lines.push(item.text);
  }
  return `${renderHeader(title)}${lines.join("\n")}\n`;
}

function renderGroup(group: string): string {
  return `[${group}]\n`;
}

function render(candidates: CandidateSection[], chosen: Map<SectionKind, ContextItem[]>, tokenizer: Tokenizer): PackResult {
  const sections: ContextSection[] = [];
  const blocks: string[] = [];
  const inRenderOrder = [
    ...candidates.filter((candidate) => !candidate.renderLast),
    ...candidates.filter((candidate) => candidate.renderLast),
  ];
  for (const candidate of inRenderOrder) {
    const picked = chosen.get(candidate.kind) ?? [];
    if (picked.length === 0) continue;
    const ordered = candidate.chronological
      ? [...picked].reverse()
      : candidate.grouped
        ? [...picked].sort((a, b) => (a.group ?? "").localeCompare(b.group ?? ""))
        : picked;
    const block = renderBlock(candidate.title, ordered, candidate.grouped);
    blocks.push(block);
    sections.push({ kind: candidate.kind, tokens: tokenizer.count(block), items: ordered });
  }
  const prompt = blocks.join("\n");
  return { sections, prompt, totalTokens: tokenizer.count(prompt), repeated: [] };
}

function dropLowestPriority(candidates: CandidateSection[], chosen: Map<SectionKind, Packed[]>): boolean {
  for (const candidate of [...candidates].reverse()) {
    if (candidate.required) continue;
    const picked = chosen.get(candidate.kind);
    if (picked && picked.length > 0) {
      picked.pop();
      return true;
    }
  }
  return false;
}
