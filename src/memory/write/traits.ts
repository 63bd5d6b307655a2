import { randomUUID } from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { memories, traitEvidence } from "../../db/schema/index.js";
import { applyEvidence, newTrait, type TraitState } from "../lifecycle/trait-stages.js";
import { current } from "../visibility.js";
import { contentHash } from "./content-hash.js";
import type { TraitCandidate } from "./extraction-grounding.js";
import { insertMemory, type MemoryRecord, sameKey, snapshot, writeHistory } from "./memory-writes.js";
import type { AppliedOperation, Scope } from "./operations.js";

/** Traits that cannot both hold: liking and disliking the same thing. */
const OPPOSITE_PREFIX: Record<string, string> = { likes: "dislikes", dislikes: "likes" };

/** The trait key that contradicts `key` ("likes:cats" → "dislikes:cats"), if it has one. */
export function oppositeTraitKey(key: string): string | undefined {
  const [prefix, ...rest] = key.split(":");
  const opposite = prefix ? OPPOSITE_PREFIX[prefix] : undefined;
  return opposite && rest.length > 0 ? `${opposite}:${rest.join(":")}` : undefined;
}

/**
 * Records one observation for a trait: supporting evidence creates the trait as a trend or
 * reinforces it, contradicting evidence weakens an existing trait (and creates nothing). Counts,
 * confidence and stage change in place with `version + 1`; every change is in the history and
 * every observation in `trait_evidence`.
 *
 * Opposite traits (likes / dislikes of one thing) are never both current: supporting evidence for
 * one dissolves the other when it is the later statement; evidence older than the opposite
 * trait's last reinforcement is kept as evidence only (the later statement wins).
 */
export async function applyTraitEvidence(
  tx: Queryable,
  scope: Scope,
  candidate: TraitCandidate,
  actor: string,
  now: Date,
): Promise<AppliedOperation[]> {
  const operations: AppliedOperation[] = [];
  const oppositeKey = candidate.direction === "supporting" ? oppositeTraitKey(candidate.key) : undefined;
  if (oppositeKey) {
    const opposite = await currentTrait(tx, scope, oppositeKey);
    if (opposite && opposite.lastReinforcedAt !== null && opposite.lastReinforcedAt > candidate.validAt) {
      return [{ op: "NOOP", kind: "trait", memory_id: opposite.id, key: candidate.key, reason: `${oppositeKey} was stated later` }];
    }
    if (opposite) {
      await dissolveTrait(tx, scope, opposite, {
        actor,
        now,
        reason: `contradicted by ${candidate.key}`,
        evidence: { ...candidate, direction: "contradicting" },
      });
      operations.push({
        op: "UPDATE",
        kind: "trait",
        memory_id: opposite.id,
        key: oppositeKey,
        reason: `dissolved: ${candidate.key} stated`,
      });
    }
  }
  const trait = await currentTrait(tx, scope, candidate.key);
  const evidence = { direction: candidate.direction, quality: candidate.quality, observedAt: candidate.validAt };

  if (!trait) {
    if (candidate.direction === "contradicting") return operations;
    const id = randomUUID();
    const state = newTrait(evidence);
    await insertMemory(
      tx,
      {
        id,
        appId: scope.appId,
        userId: scope.userId,
        sessionId: candidate.sessionId,
        type: "trait",
        subtype: candidate.subtype,
        content: candidate.content,
        key: candidate.key,
        importance: 0.5,
        validAt: candidate.validAt,
        contentHash: contentHash(candidate.content),
        firstObservedAt: candidate.validAt,
        lastReinforcedAt: candidate.validAt,
        ...stateColumns(state),
      },
      candidate.sources,
      actor,
      now,
      "first observation",
    );
    await recordEvidence(tx, id, candidate);
    return [...operations, { op: "ADD", kind: "trait", memory_id: id, key: candidate.key, reason: "new trend" }];
  }

  const before = stateOf(trait);
  const after = applyEvidence(before, evidence);
  const changes = {
    ...stateColumns(after),
    version: trait.version + 1,
    ...(candidate.direction === "supporting" ? { lastReinforcedAt: candidate.validAt } : {}),
    updatedAt: now,
  };
  await updateTrait(tx, trait, changes);
  await recordEvidence(tx, trait.id, candidate);
  const owner = { memoryId: trait.id, appId: scope.appId, userId: scope.userId, actor, at: now };
  await writeHistory(tx, {
    ...owner,
    operation: "UPDATE",
    before: snapshot(trait),
    after: snapshot({ ...trait, ...changes }),
    reason: `${candidate.direction} evidence (${candidate.quality})`,
  });
  if (after.stage !== before.stage) {
    await writeHistory(tx, {
      ...owner,
      operation: "STAGE_CHANGE",
      before: { traitStage: before.stage },
      after: { traitStage: after.stage },
      reason: `${before.stage} → ${after.stage}`,
    });
  }
  return [
    ...operations,
    { op: "UPDATE", kind: "trait", memory_id: trait.id, key: candidate.key, reason: `${candidate.direction}; stage ${after.stage}` },
  ];
}

/**
 * Ends a trait: stage `dissolved`, one more contradiction, history (UPDATE and STAGE_CHANGE), and
 * the contradicting observation as evidence. Used when a later statement says the opposite.
 */
export async function dissolveTrait(
  tx: Queryable,
  scope: Scope,
  trait: MemoryRecord,
  options: { actor: string; now: Date; reason: string; evidence: TraitCandidate },
): Promise<void> {
  const changes = {
    traitStage: "dissolved" as const,
    contradictionCount: trait.contradictionCount + 1,
    version: trait.version + 1,
    updatedAt: options.now,
  };
  await updateTrait(tx, trait, changes);
  await recordEvidence(tx, trait.id, options.evidence);
  const owner = { memoryId: trait.id, appId: scope.appId, userId: scope.userId, actor: options.actor, at: options.now };
  await writeHistory(tx, {
    ...owner,
    operation: "UPDATE",
    before: snapshot(trait),
    after: snapshot({ ...trait, ...changes }),
    reason: options.reason,
  });
  await writeHistory(tx, {
    ...owner,
    operation: "STAGE_CHANGE",
    before: { traitStage: trait.traitStage },
    after: { traitStage: "dissolved" },
    reason: options.reason,
  });
}

/** The user's current (not dissolved, not expired) trait under `key`, locked for this transaction. */
export async function currentTrait(tx: Queryable, scope: Scope, key: string): Promise<MemoryRecord | undefined> {
  const [trait] = await tx
    .select()
    .from(memories)
    .where(and(sameKey(scope, "trait", key), ne(memories.traitStage, "dissolved"), current(memories)))
    .limit(1)
    .for("update");
  return trait;
}

async function updateTrait(tx: Queryable, trait: MemoryRecord, changes: Partial<MemoryRecord>): Promise<void> {
  const updated = await tx
    .update(memories)
    .set(changes)
    .where(and(eq(memories.id, trait.id), eq(memories.version, trait.version)))
    .returning({ id: memories.id });
  if (updated.length === 0) throw new Error(`trait ${trait.id} changed concurrently; retry the consolidation`);
}

function stateOf(trait: MemoryRecord): TraitState {
  return {
    stage: trait.traitStage ?? "trend",
    confidence: trait.confidence,
    reinforcements: trait.reinforcementCount,
    contradictions: trait.contradictionCount,
    windowStart: trait.windowStart,
    windowEnd: trait.windowEnd,
  };
}

function stateColumns(state: TraitState) {
  return {
    traitStage: state.stage,
    confidence: state.confidence,
    reinforcementCount: state.reinforcements,
    contradictionCount: state.contradictions,
    windowStart: state.windowStart,
    windowEnd: state.windowEnd,
  };
}

async function recordEvidence(tx: Queryable, traitId: string, candidate: TraitCandidate): Promise<void> {
  await tx.insert(traitEvidence).values({
    id: randomUUID(),
    traitId,
    direction: candidate.direction,
    quality: candidate.quality,
    content: candidate.content,
    eventId: candidate.sources[0]?.event_id ?? null,
    observedAt: candidate.validAt,
  });
}
