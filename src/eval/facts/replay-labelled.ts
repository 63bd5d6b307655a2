import type { ExtractedFact, ExtractedItems } from "../../providers/extraction.js";
import type { ExtractionRequest, KnownFact } from "../../providers/types.js";
import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";
import { type FactLabel, matchesLabel } from "./labelled-set.js";
import { type Part, partOf } from "./split.js";
import type { ResolvedStream, StreamTurn } from "./stream-turns.js";
import { type Kind, kindOfKey } from "./taxonomy.js";

export type Extract = (request: ExtractionRequest) => ExtractedItems | Promise<ExtractedItems>;

/**
 * What the write path does with one turn's facts, given the user's current facts: which current
 * facts each new fact ends (by attribute, and by the contradiction rules), returned as the keys
 * to close. The evaluation applies it as consolidation would, so the score is the memory's, not
 * the extractor's alone.
 */
export type CloseRule = (fact: ExtractedFact, current: readonly KnownFact[]) => { key: string; reason: string }[];

/** Tallies of one part of the fact sets. */
export interface PartScore {
  /** Facts written, by the kind of their key. */
  written: Record<string, number>;
  /** Written facts that record a labelled fact of their turn (or of a later turn that restates it). */
  right: Record<string, number>;
  /** Labels, by their first kind, and those some fact recorded. */
  labels: Record<string, number>;
  found: Record<string, number>;
  /** Changes of state: closures asked for where the closed fact had been written, and those done. */
  closures: number;
  closed: number;
  /** Closures asked for of facts the extractor never wrote (nothing to close). */
  closuresMoot: number;
  /** Facts current at the end of their stream that are not true: never labelled, or closed since. */
  falseCurrent: Record<string, number>;
  /** True facts a wrong write removed (superseded or retracted). */
  lostTrue: number;
  failures: string[];
}

const emptyScore = (): PartScore => ({
  written: {},
  right: {},
  labels: {},
  found: {},
  closures: 0,
  closed: 0,
  closuresMoot: 0,
  falseCurrent: {},
  lostTrue: 0,
  failures: [],
});
const bump = (record: Record<string, number>, key: string, by = 1) => {
  record[key] = (record[key] ?? 0) + by;
};

interface Entry {
  fact: KnownFact;
  kind: Kind;
  /** Labels it records; empty for a wrong fact. */
  labels: Set<string>;
  turn: StreamTurn;
  part: Part;
}

interface LabelState {
  label: FactLabel;
  turn: StreamTurn;
  part: Part;
  found: boolean;
  closedAt: number | null;
}

/**
 * Replays each stream through `extract` turn by turn, the facts current so far shown to it as
 * reflection shows them, applies what it writes as the write path does (`close`), and scores
 * against the labels: precision and recall by kind, closures, facts lost and false current facts
 * at the end, each counted in the part (tuning / held-out) of the turn it belongs to: the fixed
 * split unless `partOfUnit` says otherwise (a set written after tuning is held out whole).
 */
export async function replayLabelled(
  streams: readonly ResolvedStream[],
  extract: Extract,
  close: CloseRule,
  partOfUnit: (unit: string) => Part = partOf,
): Promise<Record<Part, PartScore>> {
  const scores: Record<Part, PartScore> = { tuning: emptyScore(), "held-out": emptyScore() };
  for (const stream of streams) {
    const unitOf = (turn: StreamTurn) =>
      stream.source === "fresh" ? `fresh/${stream.name}` : `${stream.source}/${stream.name}/${turn.id}`;
    const memory = new Map<string, Entry>();
    const labels = new Map<string, LabelState>();
    stream.turns.forEach((turn) => {
      for (const label of turn.labels.facts)
        labels.set(label.id, { label, turn, part: partOfUnit(unitOf(turn)), found: false, closedAt: null });
    });
    for (const [index, turn] of stream.turns.entries()) {
      const part = partOfUnit(unitOf(turn));
      const score = scores[part];
      for (const id of turn.labels.closes) {
        const state = labels.get(id);
        if (!state) throw new Error(`${stream.name} ${turn.id}: closes #${id}, which no earlier turn labels`);
        state.closedAt = index;
      }
      const open = (state: LabelState) => state.closedAt === null && state.turn !== turn;
      const extraction = await extract({ turns: [{ role: "user", content: turn.text, seq: 1 }], knownFacts: current(memory) });
      for (const fact of extraction.facts) {
        const kind = kindOfKey(fact.key, fact.content);
        const attribute = canonicalAttribute(fact.key);
        // Restating what memory holds word for word changes nothing (consolidation's NOOP).
        if (fact.operation !== "DELETE" && memory.get(attribute)?.fact.content === fact.content) continue;
        const removed: Entry[] = [];
        for (const { key, reason } of [
          ...(memory.has(attribute) ? [{ key: attribute, reason: "same attribute" }] : []),
          ...close(fact, current(memory)),
        ]) {
          const entry = memory.get(canonicalAttribute(key));
          if (!entry) continue;
          memory.delete(canonicalAttribute(key));
          removed.push(entry);
          if (reason !== "same attribute")
            score.failures.push(`  (${turn.id}) closes ${entry.fact.key} "${entry.fact.content}" — ${reason}`);
        }
        if (fact.operation === "DELETE") {
          for (const entry of removed) lost(score, entry, labels, index, turn, `DELETE ${fact.key}`);
          continue;
        }
        const own = turn.labels.facts.filter((label) => matchesLabel(fact.content, label));
        const restated = [...labels.values()].filter((state) => open(state) && matchesLabel(fact.content, state.label));
        const recorded = new Set([...own.map((label) => label.id), ...restated.map((state) => state.label.id)]);
        for (const entry of removed)
          if (![...entry.labels].some((id) => recorded.has(id))) lost(score, entry, labels, index, turn, fact.content);
        for (const id of recorded) (labels.get(id) as LabelState).found = true;
        memory.set(attribute, { fact: { key: fact.key, value: fact.value, content: fact.content }, kind, labels: recorded, turn, part });
        if (own.length === 0 && restated.length > 0) continue;
        bump(score.written, kind);
        if (own.length > 0) bump(score.right, kind);
        else score.failures.push(`wrong ${kind}: "${clip(turn.text)}" (${turn.id}) → ${fact.operation} ${fact.key}: ${fact.content}`);
      }
      for (const id of turn.labels.closes) {
        const state = labels.get(id) as LabelState;
        if (!state.found) {
          score.closuresMoot += 1;
          continue;
        }
        score.closures += 1;
        const still = [...memory.values()].filter(
          (entry) => entry.labels.has(id) && ![...entry.labels].some((other) => labels.get(other)?.closedAt === null),
        );
        if (still.length === 0) score.closed += 1;
        else
          score.failures.push(
            `not closed: "${clip(turn.text)}" (${turn.id}) leaves ${still.map((entry) => `"${entry.fact.content}"`).join(", ")}`,
          );
      }
    }
    for (const state of labels.values()) {
      const score = scores[state.part];
      const kind = state.label.kinds[0] as Kind;
      bump(score.labels, kind);
      if (state.found) bump(score.found, kind);
      else
        score.failures.push(
          `missed ${kind}: "${clip(state.turn.text)}" (${state.turn.id}) → ${state.label.groups.map((group) => group.join("|")).join(" + ")}`,
        );
    }
    for (const entry of memory.values()) {
      const closedLabels = [...entry.labels].filter((id) => labels.get(id)?.closedAt !== null);
      const wrong = entry.labels.size === 0;
      if (!wrong && closedLabels.length < entry.labels.size) continue;
      const blamed = wrong ? entry.part : (labels.get(closedLabels[0] as string) as LabelState).part;
      bump(scores[blamed].falseCurrent, entry.kind);
      scores[blamed].failures.push(
        `false current ${entry.kind}: ${entry.fact.key}: ${entry.fact.content} (${wrong ? `written at ${entry.turn.id}` : "closed since"})`,
      );
    }
  }
  return scores;
}

/** The current facts, most recently changed first (as reflection lists them). */
function current(memory: Map<string, Entry>): KnownFact[] {
  return [...memory.values()].map((entry) => entry.fact).reverse();
}

function lost(score: PartScore, entry: Entry, labels: Map<string, LabelState>, index: number, turn: StreamTurn, by: string): void {
  const stillTrue = [...entry.labels].filter((id) => labels.get(id)?.closedAt === null || (labels.get(id)?.closedAt ?? -1) > index);
  if (entry.labels.size === 0 || stillTrue.length === 0) return;
  score.lostTrue += 1;
  score.failures.push(`lost true: "${entry.fact.content}" removed by "${clip(turn.text)}" (${turn.id}) → ${by}`);
}

const clip = (text: string) => (text.length > 140 ? `${text.slice(0, 137)}…` : text);

/** Precision, recall and false current facts of a part, in total and by kind. */
export function summarise(score: PartScore): {
  precision: number;
  recall: number;
  falseCurrent: number;
  byKind: { kind: string; written: number; precision: number; labels: number; recall: number; falseCurrent: number }[];
} {
  const sum = (record: Record<string, number>) => Object.values(record).reduce((total, value) => total + value, 0);
  const kinds = [...new Set([...Object.keys(score.written), ...Object.keys(score.labels), ...Object.keys(score.falseCurrent)])].sort();
  return {
    precision: sum(score.right) / Math.max(1, sum(score.written)),
    recall: sum(score.found) / Math.max(1, sum(score.labels)),
    falseCurrent: sum(score.falseCurrent),
    byKind: kinds.map((kind) => ({
      kind,
      written: score.written[kind] ?? 0,
      precision: (score.right[kind] ?? 0) / Math.max(1, score.written[kind] ?? 0),
      labels: score.labels[kind] ?? 0,
      recall: (score.found[kind] ?? 0) / Math.max(1, score.labels[kind] ?? 0),
      falseCurrent: score.falseCurrent[kind] ?? 0,
    })),
  };
}
