import type { consolidationJobs, memoryHistory } from "../src/db/schema/index.js";
import { currentRetention, type RetentionClock } from "../src/memory/lifecycle/retention.js";
import type { InstructionRow } from "../src/memory/procedural/instructions.js";
import type { MemoryRow } from "../src/memory/read/memory-read.js";
import { roundScore, type ScoredMemory } from "../src/memory/recall/scoring.js";
import type { LeftOut } from "../src/memory/recall/search.js";
import { rankingSummary, recallSignals } from "../src/memory/recall/signals.js";
import type { MemoryState } from "../src/pipeline/derive/memory-diff.js";
import type { RebuildPreview } from "../src/pipeline/derive/preview-rebuild.js";
import type { SessionEventRow } from "../src/sessions/event-log.js";
import type { ScopedState } from "../src/sessions/scoped-state.js";
import type { SessionRow } from "../src/sessions/session-store.js";
import type { Clock } from "../src/util/clock.js";

/** Retention as the API reports it: at the runtime's clock, at the scheduled decay's λ. */
export function retentionClock(deps: { decay: { lambda: number }; clock: Clock }): RetentionClock {
  return { lambda: deps.decay.lambda, now: deps.clock.now() };
}

/** The public JSON of a session: snake_case, ISO timestamps. */
export function sessionJson(row: SessionRow, state?: ScopedState) {
  return {
    id: row.id,
    app_id: row.appId,
    user_id: row.userId,
    agent_id: row.agentId,
    metadata: row.metadata,
    last_seq: row.lastSeq,
    replayed_seq: row.replayedSeq,
    reflected_seq: row.reflectedSeq,
    started_at: row.startedAt.toISOString(),
    ended_at: row.endedAt?.toISOString() ?? null,
    last_event_at: row.lastEventAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...(state ? { state } : {}),
  };
}

export function eventJson(row: SessionEventRow) {
  return {
    id: row.id,
    session_id: row.sessionId,
    seq: row.seq,
    type: row.type,
    role: row.role,
    content: row.content,
    data: row.data ?? null,
    token_count: row.tokenCount,
    idempotency_key: row.idempotencyKey,
    occurred_at: row.occurredAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * A memory's public JSON, with its retention computed at `at` (nothing stores it); without `at`
 * (the export: what is stored, the same in two exports of the same data) no retention.
 */
export function memoryJson(row: MemoryRow, at: RetentionClock | null, sources?: { session_id: string; event_id: string; seq: number }[]) {
  return {
    id: row.id,
    app_id: row.appId,
    user_id: row.userId,
    session_id: row.sessionId,
    type: row.type,
    subtype: row.subtype,
    content: row.content,
    key: row.key,
    value: row.value ?? null,
    importance: row.importance,
    confidence: row.confidence,
    valid_at: row.validAt.toISOString(),
    invalid_at: row.invalidAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    expired_at: row.expiredAt?.toISOString() ?? null,
    version: row.version,
    superseded_by: row.supersededBy,
    access_count: row.accessCount,
    last_accessed_at: row.lastAccessedAt.toISOString(),
    ...(at ? { retention: currentRetention(row, at) } : {}),
    pinned: row.pinned,
    metadata: row.metadata,
    ...(row.type === "trait"
      ? {
          trait: {
            stage: row.traitStage,
            reinforcement_count: row.reinforcementCount,
            contradiction_count: row.contradictionCount,
            first_observed_at: row.firstObservedAt?.toISOString() ?? null,
            last_reinforced_at: row.lastReinforcedAt?.toISOString() ?? null,
            window_end: row.windowEnd?.toISOString() ?? null,
          },
        }
      : {}),
    embedding_model: row.embeddingModel,
    embedded: row.embedding !== null,
    ...(sources ? { sources } : {}),
  };
}

export function historyJson(row: typeof memoryHistory.$inferSelect) {
  return {
    id: row.id,
    operation: row.operation,
    actor: row.actor,
    before: row.before ?? null,
    after: row.after ?? null,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
  };
}

export function jobJson(row: typeof consolidationJobs.$inferSelect) {
  return {
    id: row.id,
    app_id: row.appId,
    user_id: row.userId,
    job_type: row.jobType,
    status: row.status,
    session_id: row.sessionId,
    run_id: row.runId,
    from_seq: row.fromSeq,
    to_seq: row.toSeq,
    progress: row.progress,
    result: row.result ?? null,
    error: row.error,
    started_at: row.startedAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

export function instructionJson(row: InstructionRow) {
  return {
    app_id: row.appId,
    key: row.key,
    version: row.version,
    content: row.content,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
  };
}

/** A search result; with `explainedAt` (the scores' reference time) also its retrieval receipt. */
export function scoredMemoryJson(memory: ScoredMemory, explainedAt?: Date) {
  return {
    id: memory.id,
    type: memory.type,
    subtype: memory.subtype,
    content: memory.content,
    valid_at: memory.validAt.toISOString(),
    score: memory.finalScore,
    relevance: roundScore(memory.relevance),
    similarity: roundScore(memory.similarity),
    importance: memory.importance,
    sources: memory.sources,
    /** On an episode whose statements were replaced: each change, when, and what holds now (`by` null: retracted). */
    superseded: memory.superseded
      ? memory.superseded.map((replacement) => ({ at: replacement.at.toISOString(), by: replacement.by, by_id: replacement.byId }))
      : null,
    ...(explainedAt ? { signals: recallSignals(memory, explainedAt), why: whyFound(memory) } : {}),
  };
}

function whyFound(memory: ScoredMemory): string {
  if (memory.vectorRank === null && memory.textRank === null) return "the statement that replaced a hit's, ranked just above it";
  return `final score ${memory.finalScore} (fused rank, relevance ${memory.relevance.toFixed(2)}, recency, importance, use, retention): ${rankingSummary(memory)}`;
}

/** A search candidate that was not returned, and why. */
export function leftOutJson({ memory, because }: LeftOut, now: Date) {
  return {
    id: memory.id,
    type: memory.type,
    content: memory.content,
    score: memory.finalScore,
    relevance: roundScore(memory.relevance),
    signals: recallSignals(memory, now),
    because,
  };
}

/** A memory as a rebuild preview shows it; `memory_id` names a stored one (a derived one has none yet). */
function derivedMemoryJson(memory: MemoryState, stored: boolean) {
  return {
    ...(stored ? { memory_id: memory.id } : {}),
    type: memory.type,
    subtype: memory.subtype,
    key: memory.key,
    content: memory.content,
    value: memory.value ?? null,
    ...(memory.traitStage ? { trait_stage: memory.traitStage } : {}),
    session_id: memory.sessionId,
  };
}

export function rebuildPreviewJson(
  scope: { appId: string; userId: string },
  preview: RebuildPreview,
  providers: { llm: string; embedder: string },
) {
  return {
    user_id: scope.userId,
    app_id: scope.appId,
    dry_run: true,
    llm: providers.llm,
    embedding_model: providers.embedder,
    sessions: preview.sessions,
    counts: {
      added: preview.added.length,
      removed: preview.removed.length,
      changed: preview.changed.length,
      unchanged: preview.unchanged,
    },
    added: preview.added.map((memory) => derivedMemoryJson(memory, false)),
    removed: preview.removed.map((memory) => derivedMemoryJson(memory, true)),
    changed: preview.changed.map(({ before, after }) => ({
      memory_id: before.id,
      type: before.type,
      subtype: before.subtype,
      key: before.key ?? after.key,
      session_id: before.sessionId,
      before: { content: before.content, value: before.value ?? null, ...(before.traitStage ? { trait_stage: before.traitStage } : {}) },
      after: { content: after.content, value: after.value ?? null, ...(after.traitStage ? { trait_stage: after.traitStage } : {}) },
    })),
  };
}
