import type { RecalledMemory, TurnAnchor } from "../memory/recall/hybrid-recall.js";

/** Enough candidates to fill the memory share with short items (~15 tokens each), within bounds. */
export const memoryCandidates = (budget: number) => Math.min(400, Math.max(30, Math.ceil(budget / 15)));

/** Puts the turn that follows each anchor (one of the best turn hits) right after it (CONTEXT_FOLLOWING_TURNS). */
export function withFollowingTurns(ranked: RecalledMemory[], anchors: TurnAnchor[], following: RecalledMemory[]): RecalledMemory[] {
  if (following.length === 0) return ranked;
  // A follower recall found on its own keeps its own scores (the receipts show them).
  const recalled = new Map(ranked.map((memory) => [memory.id, memory]));
  const next = new Map(following.map((memory) => [`${memory.sessionId}:${memory.seq}`, recalled.get(memory.id) ?? memory]));
  const anchorIds = new Set(anchors.map((anchor) => anchor.id));
  const result: RecalledMemory[] = [];
  const placed = new Set<string>();
  for (const memory of ranked) {
    if (placed.has(memory.id)) continue;
    placed.add(memory.id);
    result.push(memory);
    const follower = anchorIds.has(memory.id) ? next.get(`${memory.sessionId}:${(memory.seq as number) + 1}`) : undefined;
    // A follower ranked further down moves up next to its anchor.
    if (follower && !placed.has(follower.id)) {
      result.push(follower);
      placed.add(follower.id);
    }
  }
  return result;
}

/**
 * Drops an episode (turn or summary) whose source events are all covered by better-ranked
 * episodes — a turn quoted by a summary already chosen, say: its text is already in the window.
 * Facts, insights and traits say something else about the same events and are always kept.
 */
export function withoutRedundant(recalled: RecalledMemory[]): RecalledMemory[] {
  const covered = new Set<string>();
  return recalled.filter((memory) => {
    if (memory.type !== "episodic") return true;
    const events = memory.sources.map((source) => source.event_id);
    if (events.length > 0 && events.every((event) => covered.has(event))) return false;
    for (const event of events) covered.add(event);
    return true;
  });
}

/**
 * Episodes whose statement was replaced sink behind current ones (an item at rank i counts as
 * rank 2i): still there when the budget allows — what used to be true can matter — but never ahead
 * of what holds now.
 */
export function demoteSuperseded(recalled: RecalledMemory[]): RecalledMemory[] {
  return recalled
    .map((memory, index) => ({ memory, rank: memory.superseded ? index * 2 + 1 : index }))
    .sort((a, b) => a.rank - b.rank)
    .map(({ memory }) => memory);
}

/** A query that asks what the assistant said, suggested or answered: its turns are what it looks for. */
const ASKS_THE_ASSISTANT = /\b(you|your|yours|assistant|chatbot)\b/i;

/**
 * The assistant's turns that hold none of the query's words sink behind the user's own statements
 * (an item at rank i counts as rank 2i, as a superseded one does): "Congratulations!" says nothing
 * of when Maya starts school, the user's turn beside it does. An assistant turn that speaks of what
 * is asked keeps its place (in a conversation between two people, the other speaker's "I painted a
 * sunrise" answers "what did she paint?"), and so does every assistant turn when the query asks
 * what the assistant said ("what did you recommend?").
 */
export function demoteAssistantTurns(recalled: RecalledMemory[], query: string): RecalledMemory[] {
  if (ASKS_THE_ASSISTANT.test(query)) return recalled;
  return recalled
    .map((memory, index) => ({ memory, rank: memory.role === "assistant" && memory.coverage === 0 ? index * 2 + 1 : index }))
    .sort((a, b) => a.rank - b.rank)
    .map(({ memory }) => memory);
}
