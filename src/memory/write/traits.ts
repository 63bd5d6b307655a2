import { randomUUID } from "node:crypto";
import { and, eq, ne, sql } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { memories, traitEvidence } from "../../db/schema/index.js";
import { applyEvidence, newTrait, type TraitState } from "../lifecycle/trait-stages.js";
import { contentHash } from "./content-hash.js";
import type { TraitCandidate } from "./extraction-grounding.js";
import { insertMemory, sameKey, snapshot, writeHistory } from "./memory-writes.js";
import type { AppliedOperation, Scope } from "./operations.js";

/**
 * Records one observation for a trait (C8): supporting evidence creates the trait as a trend or
 * reinforces it, contradicting evidence weakens an existing trait (and creates nothing). Counts,
 * confidence and stage change in place with `version + 1`; every change is in the history and
 * every observation in `trait_evidence`.
 */
export async function applyTraitEvidence(
  tx: Queryable,
  scope: Scope,
  candidate: TraitCandidate,
  actor: string,
): Promise<AppliedOperation[]> {
  const [trait] = await tx
    .select()
    .from(memories)
    .where(and(sameKey(scope, "trait", candidate.key), ne(memories.traitStage, "dissolved"), sql`${memories.expiredAt} IS NULL`))
    .limit(1)
    .for("update");
  const evidence = { direction: candidate.direction, quality: candidate.quality, observedAt: candidate.validAt };

  if (!trait) {
    if (candidate.direction === "contradicting") return [];
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
      "first observation",
    );
    await recordEvidence(tx, id, candidate);
    return [{ op: "ADD", kind: "trait", memory_id: id, key: candidate.key, reason: "new trend" }];
  }

  const before: TraitState = {
    stage: trait.traitStage ?? "trend",
    confidence: trait.confidence,
    reinforcements: trait.reinforcementCount,
    contradictions: trait.contradictionCount,
    windowStart: trait.windowStart,
    windowEnd: trait.windowEnd,
  };
  const after = applyEvidence(before, evidence);
  const changes = {
    ...stateColumns(after),
    version: trait.version + 1,
    ...(candidate.direction === "supporting" ? { lastReinforcedAt: candidate.validAt } : {}),
    updatedAt: new Date(),
  };
  const updated = await tx
    .update(memories)
    .set(changes)
    .where(and(eq(memories.id, trait.id), eq(memories.version, trait.version)))
    .returning({ id: memories.id });
  if (updated.length === 0) throw new Error(`trait ${trait.id} changed concurrently; retry the consolidation`);
  await recordEvidence(tx, trait.id, candidate);
  const owner = { memoryId: trait.id, appId: scope.appId, userId: scope.userId, actor };
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
  return [{ op: "UPDATE", kind: "trait", memory_id: trait.id, key: candidate.key, reason: `${candidate.direction}; stage ${after.stage}` }];
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
