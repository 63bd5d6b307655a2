/** What the scoring reads of a context window's item: its text and the session events it came from. */
export interface WindowItem {
  text: string;
  sources: readonly { event_id: string }[];
}

/** An evidence turn: its id and what was said. */
export interface EvidenceTurn {
  id: string;
  content: string;
}

/** Whitespace collapsed and case folded, so a turn quoted in an item is found whatever the line breaks. */
export const normalised = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Turns the window holds through its items' source events (LoCoMo's measure): `turnByEvent` maps event ids to turn ids. */
export function turnsBySource(items: readonly WindowItem[], turnByEvent: ReadonlyMap<string, string>): Set<string> {
  const held = new Set<string>();
  for (const item of items)
    for (const source of item.sources) {
      const turn = turnByEvent.get(source.event_id);
      if (turn !== undefined) held.add(turn);
    }
  return held;
}

/**
 * Evidence turns whose whole text appears verbatim (normalised) in one of the window's items: the
 * strict measure. A summary that only sources a turn, or an item cut to fit the budget, does not count.
 */
export function turnsByText(items: readonly WindowItem[], evidence: readonly EvidenceTurn[]): Set<string> {
  const texts = items.map((item) => normalised(item.text));
  return new Set(
    evidence
      .filter((turn) => normalised(turn.content) !== "" && texts.some((text) => text.includes(normalised(turn.content))))
      .map((turn) => turn.id),
  );
}

/**
 * Evidence recall: the share of the evidence turns the window holds; NaN without evidence (such a
 * question is not scored).
 *
 * @example
 * evidenceRecall(["s1#0", "s2#3"], new Set(["s2#3", "s9#1"])) // 0.5
 */
export function evidenceRecall(evidence: readonly string[], held: ReadonlySet<string>): number {
  const distinct = [...new Set(evidence)];
  return distinct.length === 0 ? Number.NaN : distinct.filter((id) => held.has(id)).length / distinct.length;
}
