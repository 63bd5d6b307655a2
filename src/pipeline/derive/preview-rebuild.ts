import { randomUUID } from "node:crypto";
import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Database } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import { DomainError } from "../../errors.js";
import { currentGraph, diffGraph, type GraphDiff } from "../../memory/graph/graph-state.js";
import { lockUser } from "../../memory/user-lock.js";
import { type Embedder, type LanguageModel, ProviderError } from "../../providers/types.js";
import { withUsageScope } from "../../providers/usage-scope.js";
import { recordUsage, type UsageRecord } from "../../usage/usage-store.js";
import type { Clock } from "../../util/clock.js";
import { startChunkJob } from "../jobs.js";
import { resetDerivedMemory } from "../rebuild.js";
import { loadReflectionChunk } from "../reflection-backlog.js";
import { loadReplayChunk } from "../replay-backlog.js";
import { diffMemories, type MemoryDiff, type MemoryState } from "./memory-diff.js";
import { consolidateChunk, extractChunk } from "./reflection-chunk.js";
import { summarizeChunk, writeChunkEpisodes } from "./replay-chunk.js";

/** What deriving a user's memory takes: the store, the clock, the providers, the chunk sizes. */
export interface DerivationDeps {
  db: Database;
  clock: Clock;
  llm: LanguageModel;
  embedder: Embedder;
  replayMaxEvents: number;
  reflectionMaxEvents: number;
}

export interface RebuildPreview extends MemoryDiff {
  /** Sessions derived again. */
  sessions: number;
  /** The entity graph's entities and relations the derivation adds and removes. */
  graph: GraphDiff;
}

type Scope = { appId: string; userId: string };

/** Thrown to roll the shadow derivation back once its result is read. */
class ShadowRollback extends Error {}

/**
 * Replay diff: the user's memory derived from the log again — the rebuild's reset, then fast replay
 * and deep reflection of every session, oldest first, through the pipeline's own chunk bodies and
 * the current providers — inside one transaction that is rolled back, compared with what is stored.
 * Nothing derived is kept. The provider calls it made are real, so they are metered, after the
 * rollback. The transaction holds the user's lock (their pipeline waits) and, on PGlite, the only
 * connection, for as long as the derivation takes.
 */
export async function previewRebuild(deps: DerivationDeps, scope: Scope): Promise<RebuildPreview> {
  const spent: UsageRecord[] = [];
  let preview: RebuildPreview | undefined;
  try {
    await deps.db.transaction(async (tx) => {
      await lockUser(tx, scope.appId, scope.userId);
      const now = deps.clock.now();
      const stored = await currentMemories(tx, scope, now);
      const storedGraph = await currentGraph(tx, scope, now);
      const plan = await resetDerivedMemory(tx, scope);
      const shadow = { ...deps, db: tx };
      const runId = `rebuild-preview-${randomUUID()}`;
      for (const session of plan.sessions) {
        await replaySession(shadow, session.session_id, runId, spent);
        await reflectSession(shadow, session.session_id, runId, spent);
      }
      preview = {
        sessions: plan.sessions.length,
        ...diffMemories(stored, await currentMemories(tx, scope, now)),
        graph: diffGraph(storedGraph, await currentGraph(tx, scope, now)),
      };
      throw new ShadowRollback();
    });
  } catch (error) {
    if (error instanceof ProviderError) {
      // Nothing was applied either way; the caller can try again (the pipeline's own runs retry by themselves).
      throw new DomainError("unavailable", `the rebuild preview stopped: a provider call failed (${error.message})`, {
        retryable: error.retryable,
        ...(error.retryAfterMs !== undefined ? { retry_after_seconds: Math.ceil(error.retryAfterMs / 1000) } : {}),
      });
    }
    if (!(error instanceof ShadowRollback)) throw error;
  } finally {
    await recordUsage(deps.db, spent);
  }
  if (!preview) throw new Error("the rebuild preview rolled back without a result");
  return preview;
}

async function replaySession(deps: DerivationDeps, sessionId: string, runId: string, spent: UsageRecord[]): Promise<void> {
  for (;;) {
    const chunk = await loadReplayChunk(deps.db, sessionId, deps.replayMaxEvents);
    if (!chunk) return;
    const jobId = await startChunkJob(deps.db, runId, "fast_replay", chunk);
    const usage = { appId: chunk.session.appId, userId: chunk.session.userId, stage: "replay" as const, deferred: spent };
    const summary = await withUsageScope(usage, () => summarizeChunk(deps.llm, chunk));
    const written = await writeChunkEpisodes(deps.db, { ...chunk, jobId }, summary, { model: deps.llm.id, now: deps.clock.now() });
    // The user's lock is held: nothing else can move the watermark, and a chunk that does not advance would loop.
    if (!written.applied) throw new Error(`replay of session ${sessionId} did not advance: ${written.reason}`);
  }
}

async function reflectSession(deps: DerivationDeps, sessionId: string, runId: string, spent: UsageRecord[]): Promise<void> {
  for (;;) {
    const chunk = await loadReflectionChunk(deps.db, sessionId, deps.reflectionMaxEvents);
    if (!chunk) return;
    const jobId = await startChunkJob(deps.db, runId, "deep_reflection", chunk);
    const usage = { appId: chunk.session.appId, userId: chunk.session.userId, stage: "reflection" as const, deferred: spent };
    const extraction = await withUsageScope(usage, () => extractChunk({ db: deps.db, extractor: deps.llm }, chunk, deps.clock.now()));
    const outcome = await withUsageScope(usage, () => consolidateChunk(deps, { ...chunk, jobId }, extraction, { now: deps.clock.now() }));
    if (!outcome.applied) throw new Error(`reflection of session ${sessionId} did not apply: ${outcome.reason}`);
  }
}

/** What the user's memory asserts now: the rows neither superseded nor invalid. */
function currentMemories(db: Database, scope: Scope, now: Date): Promise<MemoryState[]> {
  return db
    .select({
      id: memories.id,
      type: memories.type,
      subtype: memories.subtype,
      key: memories.key,
      content: memories.content,
      value: memories.value,
      traitStage: memories.traitStage,
      sessionId: memories.sessionId,
      metadata: memories.metadata,
      contentHash: memories.contentHash,
    })
    .from(memories)
    .where(
      and(
        eq(memories.appId, scope.appId),
        eq(memories.userId, scope.userId),
        isNull(memories.expiredAt),
        or(isNull(memories.invalidAt), gt(memories.invalidAt, now)),
      ),
    )
    .orderBy(memories.createdAt, memories.id);
}
