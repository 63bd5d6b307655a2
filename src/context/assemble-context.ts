import type { Database } from "../db/database.js";
import { notFound } from "../errors.js";
import type { AnnIndex } from "../memory/recall/ann-index.js";
import type { QueryVector } from "../memory/recall/engines/recall-index.js";
import { kindChannel } from "../memory/recall/engines/sql-kinds.js";
import { type RecalledMemory, type RecallSettings, recallWithFollowingTurns } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement } from "../memory/recall/later-statements.js";
import { embedQueryForRecall } from "../memory/recall/query-vector.js";
import type { Embedder } from "../providers/types.js";
import { NO_REDACTION } from "../redaction/policy.js";
import { type RedactionPolicy, redactText } from "../redaction/redact.js";
import type { Clock } from "../util/clock.js";
import { queryWords } from "./excerpts.js";
import { type SessionHistory, sessionHistory } from "./history.js";
import { packBesideLaterStatements, statementsToLookPast } from "./later-statements.js";
import {
  demoteAssistantTurns,
  demoteSuperseded,
  memoryCandidates,
  orderByQuestionTime,
  spreadOverSessions,
  withFollowingTurns,
  withOwnStatementsFirst,
  withoutRedundant,
  withSourceTurns,
} from "./memory-candidates.js";
import { memoryItem } from "./memory-items.js";
import { type CandidateSection, packSections } from "./pack.js";
import { readQuestion } from "./question.js";
import { questionAsStatement } from "./question-statement.js";
import { explainContext } from "./receipts.js";
import { type ContextRequest, type ContextWindow, memoryIdsIn } from "./schemas.js";
import type { Tokenizer } from "./tokenizer.js";

export interface ContextDeps {
  db: Database;
  embedder: Embedder;
  tokenizer: Tokenizer;
  clock: Clock;
  /** The embedding model's HNSW index on real Postgres, once built. */
  ann?: AnnIndex;
  /** The service's recall settings (text-coverage floor, BM25 statistics cache). */
  recall?: RecallSettings;
  /** Write-time redaction: the query is text sent to the embedder. */
  redaction?: RedactionPolicy;
  /** How many of the best turn hits bring their next turn (CONTEXT_FOLLOWING_TURNS). */
  followingTurns: number;
  /** Share of a well-ranked neighbour's fused score a recalled turn gains (CONTEXT_NEIGHBOUR_WEIGHT), but not in a window that reads the asker's own statements. */
  neighbourWeight: number;
  /** How the window cuts and orders what recall offers (CONTEXT_EXCERPT_TOKENS…); defaults when absent. */
  window?: Partial<WindowSettings>;
}

/** How a window cuts and orders what recall offers: the service's settings, the same for every request. */
export interface WindowSettings {
  /** Most tokens of a memory packed as an excerpt of the sentences that answer the query (CONTEXT_EXCERPT_TOKENS; 0: whole). */
  excerptTokens: number;
  /**
   * Share of the budget that pays for the later statements shown beside the window's first
   * statements (CONTEXT_LATER_SHARE; 0: none); the asker's own statements read first, twice as
   * many as it pays notes for, are each read beside what came later besides.
   */
  laterShare: number;
  /** Least cosine between a statement and a later turn for the turn to be "on its subject" (CONTEXT_LATER_SIMILARITY). */
  laterSimilarity: number;
  /** A later turn naming someone the statement named comes before the nearer ones (CONTEXT_LATER_NAMES). */
  laterNames: boolean;
  /** A question may state something of its asker, as a statement of theirs and as what they said later (CONTEXT_QUESTION_STATEMENTS). */
  questionStatements: boolean;
  /** Most tokens of a later statement shown beside its statement, and of an asker's own statement read first. */
  laterTokens: number;
  /** The time a question names orders the memories: its span first, the newest or the earliest first (CONTEXT_QUESTION_TIME). */
  questionTime: boolean;
  /** A question over many occasions takes each session's best hit before any second (CONTEXT_SPREAD_SESSIONS). */
  spreadSessions: boolean;
  /** How many of the window's first facts bring the turns they were derived from (CONTEXT_SOURCE_TURNS; 0: none). */
  sourceTurns: number;
  /** A question the user asks about themselves puts the user's own turns ahead of the assistant's (CONTEXT_ASKER_FIRST). */
  askerFirst: boolean;
  /** A question about a kind of thing (a taste, a habit, a goal) also recalls the user's statements of that kind (CONTEXT_KIND_RECALL). */
  kindRecall: boolean;
  /** A question about how the asker stands now reads the user's own statements nearest to it first (CONTEXT_ASKER_STATEMENTS). */
  askerStatements: boolean;
  /** Those statements are nearest to the question and its statement form together, both centred on the user's turns (CONTEXT_ASKER_CENTRED). */
  askerCentred: boolean;
}

export const DEFAULT_WINDOW_SETTINGS: WindowSettings = {
  excerptTokens: 0,
  laterShare: 0.2,
  laterSimilarity: 0.45,
  laterNames: true,
  questionStatements: false,
  laterTokens: 30,
  questionTime: false,
  spreadSessions: false,
  sourceTurns: 0,
  askerFirst: false,
  kindRecall: false,
  askerStatements: true,
  askerCentred: true,
};

/** How many of the asker's own statements a window reads first for each note of what was said later it pays for. */
const OWN_STATEMENTS_PER_NOTE = 2;

/**
 * Most tokens of an own statement read first: a note's, or a memory's excerpt when that is shorter
 * (whatever `excerptTokens`, so that twice as many fit in about the room the notes take).
 */
const ownStatementTokens = (settings: WindowSettings) =>
  settings.excerptTokens > 0 ? Math.min(settings.excerptTokens, settings.laterTokens) : settings.laterTokens;

/**
 * The question said as a statement, embedded beside it; when that fails, the question's own
 * vector finds the asker's statements instead, and the window says so.
 */
function embedStatementForm(
  deps: ContextDeps,
  scope: { appId: string; userId: string },
  statement: string,
  question: Promise<QueryVector | undefined>,
  warnings: string[],
): Promise<QueryVector | undefined> {
  const failed: string[] = [];
  return embedQueryForRecall(deps, { ...scope, stage: "query" }, statement, failed).then(async (vector) => {
    if (vector) return vector;
    const fallback = await question;
    // Without the question's vector either, the window's one warning already says so.
    if (fallback) warnings.push(`the asker's own statements were found by the question itself: ${failed.join("; ")}`);
    return fallback;
  });
}

/** A window without a session: no history, nothing to own. */
const NO_SESSION: SessionHistory = { owned: true, items: [] };

/** A settled promise's value, or its reason thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

/**
 * Budget shares of the optional sections, of what the required ones leave (seed 000 §4.3.3:
 * facts 0.2, memories 0.3, history 0.4; knowledge takes the design's remaining 0.1). Unused shares
 * flow to the other sections in priority order.
 */
export const DEFAULT_RATIOS = { facts: 0.2, memories: 0.3, knowledge: 0.1, history: 0.4 } as const;

/**
 * Assembles a token-budgeted context window. Sections in priority order:
 * system instruction, tools, the user message (all three required whole, else 422), profile
 * facts, memories, knowledge, history — packed into `max_tokens − reserve_output_tokens` with the
 * real tokenizer, every item with the session events it came from.
 *
 * @example
 * await assembleContext(deps, { user_id: "u1", app_id: "default", query: "What does Ana like?", max_tokens: 2000, reserve_output_tokens: 500, history: { strategy: "none", max_turns: 20, overlap: 5 } });
 */
export async function assembleContext(deps: ContextDeps, submitted: ContextRequest): Promise<ContextWindow> {
  // The query reaches the embedder (and the window's user message): redacted like everything else.
  const request = { ...submitted, query: redactText(submitted.query, deps.redaction ?? NO_REDACTION) };
  const budget = request.max_tokens - request.reserve_output_tokens;
  const warnings: string[] = [];
  const ratios = { ...DEFAULT_RATIOS, ...request.budget_ratios };
  const scope = { appId: request.app_id, userId: request.user_id };
  const now = deps.clock.now();

  const settings = { ...DEFAULT_WINDOW_SETTINGS, ...deps.window };
  const reading = { inQuestions: settings.questionStatements };
  const read = readQuestion(request.query, now);
  const kinds = settings.kindRecall ? read.kinds : [];
  // How many notes of what was said later the window pays for: their share of the budget, spent
  // only on a question about how things stand now.
  const noteCount = read.aboutPresent ? Math.floor((budget * settings.laterShare) / settings.laterTokens) : 0;
  // Twice as many of the asker's own statements as notes, each read beside what came later and
  // cut as short as a note (`ownRendering`): the change is often not among the first few turns the
  // vector finds nearest, and a statement's sentences that answer cost no more than a note.
  const ownCount = settings.askerStatements && read.aboutAsker ? OWN_STATEMENTS_PER_NOTE * noteCount : 0;
  // Not awaited here: recall ranks by text while the query is being embedded (on a server: one
  // statement once it is).
  const vector = embedQueryForRecall(deps, { ...scope, stage: "query" }, request.query, warnings);
  // The asker's own statements are statements: they lie nearest the question said as one.
  const asStatement = ownCount > 0 ? questionAsStatement(request.query) : undefined;
  const ownVector = asStatement ? embedStatementForm(deps, scope, asStatement, vector, warnings) : vector;
  // Sent at once, side by side: the session with its history (one statement), and recall.
  const [session, recall] = await Promise.allSettled([
    request.session_id ? sessionHistory(deps.db, scope, request.session_id, request.history) : Promise.resolve(NO_SESSION),
    recallWithFollowingTurns(
      deps.db,
      { ...scope, text: request.query, vector, limit: memoryCandidates(budget), now, kinds },
      {
        ...deps.recall,
        // Asked how the asker stands now, the answer is a statement of theirs, said in one turn: a
        // boost would lift the turns beside a turn that shares the question's words over a
        // statement that only the vector channel finds (docs/evaluation.md).
        neighbourWeight: ownCount > 0 ? 0 : deps.neighbourWeight,
        ...(kinds.length > 0 ? { channels: [...(deps.recall?.channels ?? []), kindChannel] } : {}),
      },
      deps.followingTurns,
      {
        // The own statements are read ahead apart, with their candidates (`composedRecall`).
        laterStatements: {
          count: noteCount,
          perStatement: 1,
          minSimilarity: settings.laterSimilarity,
          byName: settings.laterNames,
          inQuestions: reading.inQuestions,
        },
        sourceTurns: settings.sourceTurns,
        // Centred, the question's own vector ranks them too: each form misses statements the other finds.
        ownStatements: { count: ownCount, vector: ownVector, question: settings.askerCentred ? vector : undefined, reading },
      },
    ),
  ]);
  // The session first: another user's session is reported as missing, never as forbidden, whatever recall did.
  const owned = settled(session);
  if (!owned.owned) throw notFound("session", request.session_id as string);
  const history = owned.items;
  const { ranked, anchors, following, ownStatements: own, ...beyond } = settled(recall);
  const ownIds = new Set(own.map((memory) => memory.id));
  const question = {
    ...read,
    manySessions: settings.spreadSessions && read.manySessions,
    aboutAsker: settings.askerFirst && read.aboutAsker,
    time: settings.questionTime ? read.time : {},
  };
  const expanded = withFollowingTurns(ranked, anchors, following);
  const ordered = withOwnStatementsFirst(
    orderByQuestionTime(
      spreadOverSessions(demoteAssistantTurns(demoteSuperseded(withoutRedundant(expanded)), question), question),
      question,
    ),
    own,
  );
  const facts = ordered.filter((memory) => memory.type === "semantic").slice(0, settings.sourceTurns);
  // Both read past the ranking, side by side; on a server usually from what recall read ahead.
  const [later, turnsOfFacts] = await Promise.all([
    beyond.laterStatements(statementsToLookPast(ordered, noteCount, reading, ownIds), {
      perStatement: 1,
      minSimilarity: settings.laterSimilarity,
      byName: settings.laterNames,
      inQuestions: reading.inQuestions,
      now,
    }),
    beyond.sourceTurns(facts),
  ]);
  const offered = withoutRedundant(withSourceTurns(ordered, turnsOfFacts));
  const rendering = {
    tokenizer: deps.tokenizer,
    asked: queryWords(request.query),
    excerptTokens: settings.excerptTokens,
    laterTokens: settings.laterTokens,
  };
  // At a note's length the one sentence that answers is often longer than the room: it is cut rather than passed over.
  const ownRendering = { ...rendering, excerptTokens: ownStatementTokens(settings), matchingOnly: true };

  const requiredSections: CandidateSection[] = [];
  const required = (kind: "system" | "tools" | "user_message", title: string, text: string | undefined, renderLast = false) => {
    if (text) requiredSections.push({ kind, title, items: [{ text, sources: [] }], share: 0, required: true, renderLast });
  };
  required("system", "System", request.system);
  required(
    "tools",
    "Available tools",
    request.tools
      ?.map((tool) => (typeof tool === "string" ? `- ${tool}` : `- ${tool.name}${tool.description ? `: ${tool.description}` : ""}`))
      .join("\n"),
  );
  required("user_message", "Current user message", request.user_message, true);
  const memorySections = (memories: readonly RecalledMemory[], notes: ReadonlyMap<string, LaterStatement>): CandidateSection[] => {
    const asItem = (memory: RecalledMemory) => memoryItem(memory, ownIds.has(memory.id) ? ownRendering : rendering, notes.get(memory.id));
    return [
      {
        kind: "facts",
        title: "What we know about the user",
        share: ratios.facts,
        grouped: true,
        items: memories.filter((memory) => memory.type === "semantic").map(asItem),
      },
      {
        kind: "memories",
        title: "Relevant memories",
        share: ratios.memories,
        grouped: true,
        // A recalled turn (or a summary of turns) that the history section holds is not packed twice.
        yieldsTo: "history",
        items: memories.filter((memory) => memory.type !== "semantic").map(asItem),
      },
    ];
  };
  const sectionsAfterMemories: CandidateSection[] = [
    {
      kind: "knowledge",
      title: "Retrieved knowledge",
      share: ratios.knowledge,
      items: (request.knowledge ?? []).map((entry) => ({
        text: entry.source ? `- ${entry.text} (${entry.source})` : `- ${entry.text}`,
        sources: [],
      })),
    },
    { kind: "history", title: "Recent conversation", share: ratios.history, chronological: true, contiguous: true, items: history },
  ];

  const { packed, recalled, laterOf, leftWithNote } = packBesideLaterStatements(
    offered,
    later,
    (memories, notes) =>
      packSections([...requiredSections, ...memorySections(memories, notes), ...sectionsAfterMemories], budget, deps.tokenizer),
    ownIds,
  );
  const finallyOffered = new Set(recalled.map((memory) => memory.id));
  return {
    sections: packed.sections,
    total_tokens: packed.totalTokens,
    max_tokens: request.max_tokens,
    reserve_output_tokens: request.reserve_output_tokens,
    budget,
    tokenizer: deps.tokenizer.name,
    prompt: packed.prompt,
    warnings,
    ...(request.explain
      ? {
          explanation: explainContext({
            ranked,
            expanded: withSourceTurns(expanded, turnsOfFacts),
            // In rank order, with the statements left out beside their later statement.
            offered: offered.filter((memory) => finallyOffered.has(memory.id) || leftWithNote.has(memory.id)),
            leftWithNote,
            packed: new Set(memoryIdsIn(packed.sections)),
            repeated: new Set(packed.repeated),
            derivedFrom: new Map([...turnsOfFacts].flatMap(([fact, turns]) => turns.map((turn) => [turn.id, fact] as const))),
            laterOf,
            ownStatements: ownIds,
            now,
          }),
        }
      : {}),
  };
}
