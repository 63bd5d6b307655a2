import type { RecalledMemory, TurnAnchor } from "../memory/recall/hybrid-recall.js";
import type { QuestionReading } from "./question.js";

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
 * Puts the turns each fact was derived from right after the fact (CONTEXT_SOURCE_TURNS): the
 * fact's words found them, the turns say it in full. A turn already ranked higher stays where it
 * is; one ranked lower moves up.
 */
export function withSourceTurns(ranked: RecalledMemory[], turnsOf: ReadonlyMap<string, readonly RecalledMemory[]>): RecalledMemory[] {
  if (turnsOf.size === 0) return ranked;
  const recalled = new Map(ranked.map((memory) => [memory.id, memory]));
  const placed = new Set<string>();
  const result: RecalledMemory[] = [];
  for (const memory of ranked) {
    if (placed.has(memory.id)) continue;
    placed.add(memory.id);
    result.push(memory);
    for (const turn of turnsOf.get(memory.id) ?? []) {
      if (placed.has(turn.id)) continue;
      placed.add(turn.id);
      result.push(recalled.get(turn.id) ?? turn);
    }
  }
  return result;
}

/**
 * The asker's own statements nearest to a question about how they stand now, first (in their
 * order), then the rest as ordered: what the user said of themselves answers "what do I drive?"
 * before any turn that shares its words. A statement recall also ranked moves up, not twice.
 */
export function withOwnStatementsFirst(ordered: RecalledMemory[], own: readonly RecalledMemory[]): RecalledMemory[] {
  if (own.length === 0) return ordered;
  const recalled = new Map(ordered.map((memory) => [memory.id, memory]));
  const first = new Set(own.map((memory) => memory.id));
  return [...own.map((memory) => recalled.get(memory.id) ?? memory), ...ordered.filter((memory) => !first.has(memory.id))];
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
 * An order of candidates where some sink behind others and some rise: each candidate at rank i
 * counts as rank i × its factor (ties keep the recall order). A factor of 2 puts an item behind
 * the ones recall ranked up to twice as high; 0.5 lifts it as far.
 */
function reweighRanks(recalled: RecalledMemory[], factor: (memory: RecalledMemory) => number): RecalledMemory[] {
  return recalled
    .map((memory, index) => ({ memory, index, rank: (index + 1) * factor(memory) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ memory }) => memory);
}

/**
 * Episodes whose statement was replaced sink behind current ones (rank i counts as rank 2i): still
 * there when the budget allows — what used to be true can matter — but never ahead of what holds now.
 */
export function demoteSuperseded(recalled: RecalledMemory[]): RecalledMemory[] {
  return reweighRanks(recalled, (memory) => (memory.superseded ? 2 : 1));
}

/**
 * The assistant's turns that hold none of the query's words sink behind the user's own statements
 * (rank i counts as rank 2i, as a superseded one does): "Congratulations!" says nothing of when
 * Maya starts school, the user's turn beside it does. An assistant turn that speaks of what is
 * asked keeps its place (in a conversation between two people, the other speaker's "I painted a
 * sunrise" answers "what did she paint?"), and so does every assistant turn when the question asks
 * what the assistant said ("what did you recommend?"). A question the user asks about themselves
 * ("which gym do I go to?") sinks every assistant turn: what the user is, has and does, the user
 * said (when `aboutAsker` is read: CONTEXT_ASKER_FIRST).
 */
export function demoteAssistantTurns(
  recalled: RecalledMemory[],
  question: Pick<QuestionReading, "asksAssistant" | "aboutAsker">,
): RecalledMemory[] {
  if (question.asksAssistant) return recalled;
  return reweighRanks(recalled, (memory) => (memory.role === "assistant" && (memory.coverage === 0 || question.aboutAsker) ? 2 : 1));
}

/**
 * For a question that gathers over many occasions ("how many times …", "which came first, X or
 * Y"), each session's best hit comes before any session's second: the evidence is spread over
 * sessions, and the best hits of one session would otherwise fill the budget with one occasion.
 * Memories of no session stay where they are among the first hits.
 */
export function spreadOverSessions(recalled: RecalledMemory[], question: Pick<QuestionReading, "manySessions">): RecalledMemory[] {
  if (!question.manySessions) return recalled;
  const seen = new Map<string, number>();
  return recalled
    .map((memory, index) => {
      const session = memory.sessionId ?? `none:${memory.id}`;
      const occurrence = seen.get(session) ?? 0;
      seen.set(session, occurrence + 1);
      return { memory, index, occurrence };
    })
    .sort((a, b) => a.occurrence - b.occurrence || a.index - b.index)
    .map(({ memory }) => memory);
}

/**
 * The time a question names shapes the order: memories of the span it names ("last month",
 * "two weeks ago") rise (rank i counts as i / 2); when it asks what holds now ("these days",
 * "currently") newer memories rise and older ones sink, and the reverse when it asks what came
 * first — by a factor from 0.5 (the newest of the candidates) to 1.5 (the oldest).
 */
export function orderByQuestionTime(recalled: RecalledMemory[], question: Pick<QuestionReading, "time">): RecalledMemory[] {
  const { range, order } = question.time;
  if (!range && !order) return recalled;
  const times = recalled.map((memory) => memory.validAt.getTime());
  const oldest = Math.min(...times);
  const span = Math.max(...times) - oldest || 1;
  return reweighRanks(recalled, (memory) => {
    const at = memory.validAt.getTime();
    const inRange = range && (!range.from || at >= range.from.getTime()) && (!range.to || at < range.to.getTime());
    const age = (at - oldest) / span;
    const byOrder = order === "newest" ? 1.5 - age : order === "oldest" ? 0.5 + age : 1;
    return (inRange ? 0.5 : 1) * byOrder;
  });
}
