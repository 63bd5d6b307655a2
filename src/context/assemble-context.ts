import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { sessionEvents } from "../db/schema/index.js";
import { notFound } from "../errors.js";
import { type RecalledMemory, followingTurns, recallMemories } from "../memory/recall.js";
import type { Embedder } from "../providers/types.js";
import { getSession } from "../sessions/session-store.js";
import { type CandidateSection, packSections } from "./pack.js";
import type { ContextRequest, ContextWindow } from "./schemas.js";
import type { Tokenizer } from "./tokenizer.js";

export interface ContextDeps {
  db: Database;
  embedder: Embedder;
  tokenizer: Tokenizer;
}

/** Budget shares of the optional sections (seed 000 §3.4.3: memories 0.3, history 0.5 of the whole). */
export const SECTION_SHARES = { memories: 0.4, history: 0.6 } as const;
/** Enough candidates to fill the memory share with short items (~15 tokens each), within bounds. */
const memoryCandidates = (budget: number) => Math.min(400, Math.max(30, Math.ceil(budget / 15)));
const HISTORY_CANDIDATES = 100;

/**
 * Assembles a token-budgeted context window (S4, v0): the system instruction, the user's most
 * relevant memories (hybrid recall) and the session's recent history, packed into
 * `max_tokens − reserve_output_tokens` and counted with the real tokenizer. Every item carries the
 * session events it came from.
 *
 * @example
 * await assembleContext(deps, { user_id: "u1", app_id: "default", query: "What does Ana like?", max_tokens: 2000, reserve_output_tokens: 500 });
 */
export async function assembleContext(deps: ContextDeps, request: ContextRequest): Promise<ContextWindow> {
  const budget = request.max_tokens - request.reserve_output_tokens;
  const warnings: string[] = [];

  if (request.session_id) {
    const session = await getSession(deps.db, request.session_id);
    // Another user's session is reported as missing, never as forbidden.
    if (session.userId !== request.user_id || session.appId !== request.app_id) throw notFound("session", request.session_id);
  }

  const [vector, history] = await Promise.all([
    embedQuery(deps.embedder, request.query).catch((error: unknown) => {
      warnings.push(`vector recall skipped, full-text only: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }),
    request.session_id ? recentHistory(deps.db, request.session_id) : Promise.resolve([]),
  ]);
  const ranked = await recallMemories(deps.db, {
    appId: request.app_id,
    userId: request.user_id,
    text: request.query,
    ...(vector ? { vector: { values: vector, model: deps.embedder.model } } : {}),
    limit: memoryCandidates(budget),
  });
  const recalled = await withFollowingTurns(deps.db, { appId: request.app_id, userId: request.user_id }, ranked);

  const candidates: CandidateSection[] = [];
  if (request.system) {
    candidates.push({ kind: "system", title: "System", items: [{ text: request.system, sources: [] }], share: 0, required: true });
  }
  candidates.push({
    kind: "memories",
    title: "Relevant memories",
    share: SECTION_SHARES.memories,
    grouped: true,
    items: withoutRedundant(recalled).map((memory) => ({
      text: `- ${memory.content}`,
      group: memory.validAt.toISOString().slice(0, 10),
      memory_id: memory.id,
      sources: memory.sources,
    })),
  });
  candidates.push({
    kind: "history",
    title: "Recent conversation",
    share: SECTION_SHARES.history,
    chronological: true,
    contiguous: true,
    items: history,
  });

  const packed = packSections(candidates, budget, deps.tokenizer);
  return {
    sections: packed.sections,
    total_tokens: packed.totalTokens,
    max_tokens: request.max_tokens,
    reserve_output_tokens: request.reserve_output_tokens,
    budget,
    tokenizer: deps.tokenizer.name,
    prompt: packed.prompt,
    warnings,
  };
}

/** How many of the best turn hits bring their next turn along (tuned on LoCoMo dev: 5 → 0.886, 10 → 0.894, 20 → 0.878). */
const EXPANDED_TURNS = 10;

/** Puts the turn that follows each of the best turn hits right after it. */
async function withFollowingTurns(db: Database, scope: { appId: string; userId: string }, ranked: RecalledMemory[]): Promise<RecalledMemory[]> {
  const anchors = ranked.filter((memory) => memory.subtype === "turn" && memory.sessionId && memory.seq !== null).slice(0, EXPANDED_TURNS);
  const following = await followingTurns(db, scope, anchors.map((memory) => ({ sessionId: memory.sessionId as string, seq: memory.seq as number })));
  if (following.length === 0) return ranked;
  const next = new Map(following.map((memory) => [`${memory.sessionId}:${memory.seq}`, memory]));
  const result: RecalledMemory[] = [];
  const placed = new Set<string>();
  for (const memory of ranked) {
    if (placed.has(memory.id)) continue;
    placed.add(memory.id);
    result.push(memory);
    const follower = anchors.includes(memory) ? next.get(`${memory.sessionId}:${(memory.seq as number) + 1}`) : undefined;
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
function withoutRedundant(recalled: RecalledMemory[]): RecalledMemory[] {
  const covered = new Set<string>();
  return recalled.filter((memory) => {
    if (memory.type !== "episodic") return true;
    const events = memory.sources.map((source) => source.event_id);
    if (events.length > 0 && events.every((event) => covered.has(event))) return false;
    for (const event of events) covered.add(event);
    return true;
  });
}

async function embedQuery(embedder: Embedder, query: string): Promise<number[]> {
  const [vector] = await embedder.embed([query]);
  if (!vector) throw new Error("the embedder returned no vector for the query");
  return vector;
}

/** The session's newest events, newest first, as history items with their source. */
async function recentHistory(db: Database, sessionId: string): Promise<CandidateSection["items"]> {
  const rows = await db
    .select({ id: sessionEvents.id, seq: sessionEvents.seq, role: sessionEvents.role, content: sessionEvents.content, data: sessionEvents.data })
    .from(sessionEvents)
    .where(and(eq(sessionEvents.sessionId, sessionId)))
    .orderBy(desc(sessionEvents.seq))
    .limit(HISTORY_CANDIDATES);
  return rows
    .filter((row) => row.content.trim() !== "")
    .map((row) => {
      const speaker = typeof row.data?.["speaker"] === "string" ? (row.data["speaker"] as string) : row.role;
      return { text: `${speaker}: ${row.content}`, sources: [{ session_id: sessionId, event_id: row.id, seq: row.seq }] };
    });
}
