import MiniSearch from "minisearch";
import type { Tokenizer } from "../context/tokenizer.js";

export interface Turn {
  diaId: string;
  speaker: string;
  text: string;
  /** Position in the conversation, oldest first. */
  order: number;
}

/** The line a baseline packs for a turn; the same text our pipeline receives as the event. */
export function turnLine(turn: Turn): string {
  return `${turn.speaker}: ${turn.text}`;
}

/** Packs turns in the given order until the next one no longer fits the budget. */
export function packTurns(ordered: Turn[], budget: number, tokenizer: Tokenizer): Set<string> {
  const packed = new Set<string>();
  let used = 0;
  for (const turn of ordered) {
    const cost = tokenizer.count(`${turnLine(turn)}\n`);
    if (used + cost > budget) continue;
    packed.add(turn.diaId);
    used += cost;
  }
  return packed;
}

/** BM25 over raw turns (MiniSearch, BM25+ scoring), best first. */
export function bm25Ranker(turns: Turn[]): (query: string) => Turn[] {
  const index = new MiniSearch<Turn>({ idField: "diaId", fields: ["text"], storeFields: ["diaId"] });
  index.addAll(turns.map((turn) => ({ ...turn, text: turnLine(turn) })));
  const byId = new Map(turns.map((turn) => [turn.diaId, turn]));
  return (query) => index.search(query).map((hit) => byId.get(String(hit.id)) as Turn);
}

/** The newest turns first. */
export function newestFirst(turns: Turn[]): Turn[] {
  return [...turns].sort((a, b) => b.order - a.order);
}
