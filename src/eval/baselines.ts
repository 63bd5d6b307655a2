import MiniSearch from "minisearch";
import type { Tokenizer } from "../context/tokenizer.js";
import type { Embedder } from "../providers/types.js";

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
  // A haystack may hold one session twice (LongMemEval does): its turns are indexed once.
  const byId = new Map(turns.map((turn) => [turn.diaId, turn]));
  index.addAll([...byId.values()].map((turn) => ({ ...turn, text: turnLine(turn) })));
  return (query) => index.search(query).map((hit) => byId.get(String(hit.id)) as Turn);
}

/**
 * Nearest raw turns to the query by the service's own embedder (cosine), best first: the
 * vector-only baseline beside BM25. The turns are embedded once per ranker.
 */
export async function vectorRanker(turns: Turn[], embedder: Pick<Embedder, "embed">): Promise<(query: string) => Promise<Turn[]>> {
  const vectors = await embedder.embed(turns.map(turnLine));
  return async (query) => {
    const [asked] = await embedder.embed([query], { priority: "query" });
    const cosine = (vector: number[]) => vector.reduce((sum, value, index) => sum + value * ((asked as number[])[index] ?? 0), 0);
    return turns
      .map((turn, index) => ({ turn, score: cosine(vectors[index] as number[]) }))
      .sort((a, b) => b.score - a.score)
      .map(({ turn }) => turn);
  };
}

/** The newest turns first. */
export function newestFirst(turns: Turn[]): Turn[] {
  return [...turns].sort((a, b) => b.order - a.order);
}
