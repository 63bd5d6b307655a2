import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Database, Queryable } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import type { Extractor } from "../../providers/extraction.js";
import type { Embedder } from "../../providers/types.js";
import { redactedAmong } from "../../sessions/redacted-events.js";
import { retractContradicted } from "../contradictions/retract-contradicted.js";
import type { SourceRef } from "../provenance.js";
import { lockUser } from "../user-lock.js";
import { contentHash } from "./content-hash.js";
import type { CandidateBatch, FactCandidate, InsightCandidate } from "./extraction-grounding.js";
import { resolveFactKey } from "./fact-keys.js";
import { addSources, insertMemory, type MemoryRecord, sameKey, snapshot, writeHistory } from "./memory-writes.js";
import { nearestCurrentMemory } from "./nearest-current.js";
import type { AppliedOperation, Scope } from "./operations.js";
import { applyTraitEvidence, currentTrait, dissolveTrait } from "./traits.js";

/** Cosine similarity above which two memories are the same memory. */
export const DUPLICATE_SIMILARITY = 0.95;

export type { AppliedOperation, OperationKind, Scope } from "./operations.js";

export interface ConsolidationOptions {
  actor: string;
  /** The runtime's clock reading: when the changes happen (system time of the rows and history). */
  now: Date;
}

/** The vectors of a batch's fact and insight texts, by text, made before the transaction that applies it. */
export interface CandidateVectors {
  model: string;
  byText: Map<string, number[]>;
}

interface Context {
  tx: Queryable;
  scope: Scope;
  actor: string;
  vectors: Map<string, number[]>;
  model: string;
  now: Date;
  operations: AppliedOperation[];
  /** Which extractor read the batch: recorded on what it writes and on every change it makes. */
  extractor?: Extractor;
}

/**
 * Embeds the distinct texts of a batch's facts and insights (duplicate detection compares them,
 * new rows store them). Runs before the transaction: an embedding call never holds a lock.
 *
 * @example
 * const vectors = await embedCandidates(embedder, batch);
 */
export async function embedCandidates(embedder: Embedder, batch: CandidateBatch): Promise<CandidateVectors> {
  const texts = [...new Set([...batch.facts.map((fact) => fact.content), ...batch.insights.map((insight) => insight.content)])];
  const embedded = await embedder.embed(texts);
  return { model: embedder.model, byText: new Map(texts.map((text, index) => [text, embedded[index] as number[]])) };
}

/**
 * Consolidates a batch on its own (an API write): embeds it, then applies it in one transaction
 * under the user's lock. The pipeline applies its chunks inside its own unit of work instead
 * (`applyCandidates`).
 *
 * @example
 * const operations = await consolidate({ db, embedder }, { appId, userId }, batch, { actor: "api", now });
 */
export async function consolidate(
  deps: { db: Database; embedder: Embedder },
  scope: Scope,
  batch: CandidateBatch,
  options: ConsolidationOptions,
): Promise<AppliedOperation[]> {
  const vectors = await embedCandidates(deps.embedder, batch);
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, scope.appId, scope.userId);
    return applyCandidates(tx, scope, batch, vectors, options);
  });
}

/**
 * Applies extracted candidates to a user's memory as ADD / UPDATE / DELETE / NOOP operations
 * inside the caller's transaction, which holds the user's lock:
 * - a fact whose key already holds the same value is a NOOP that adds its sources; a new value
 *   supersedes the version valid at that time (the old one gets `invalid_at`, `expired_at` and
 *   `superseded_by`, both stay in history); a statement older than the current version becomes a
 *   historical version instead, so the later statement wins whatever the processing order;
 * - a fact or insight with no version of its key is a duplicate when its content hash matches or
 *   its embedding is more than 0.95 similar to a current memory; a duplicate (a re-confirmation)
 *   counts as an access and raises the memory's confidence;
 * - a value restated after it was retracted is valid again, as a new version (retract → restate →
 *   retract works any number of times, each step in history);
 * - a change of attitude (like → dislike) also records a reflection;
 * - trait evidence moves traits through their lifecycle.
 * A candidate citing an event redacted since it was read is left out (it would bring the words back).
 */
export async function applyCandidates(
  tx: Queryable,
  scope: Scope,
  batch: CandidateBatch,
  vectors: CandidateVectors,
  options: ConsolidationOptions,
): Promise<AppliedOperation[]> {
  const context: Context = {
    tx,
    scope,
    actor: options.actor,
    vectors: vectors.byText,
    model: vectors.model,
    now: options.now,
    operations: [],
    ...(batch.extractor ? { extractor: batch.extractor } : {}),
  };
  const cited = [...batch.facts, ...batch.insights, ...batch.traits].flatMap((candidate) =>
    candidate.sources.map((source) => source.event_id),
  );
  const redacted = await redactedAmong(tx, cited);
  const current = <T extends { sources: { event_id: string }[] }>(candidate: T) =>
    !candidate.sources.some((source) => redacted.has(source.event_id));
  for (const fact of batch.facts.filter(current)) await applyFactUnderItsKey(context, fact);
  for (const insight of batch.insights.filter(current)) await applyInsight(context, insight);
  for (const trait of batch.traits.filter(current))
    context.operations.push(...(await applyTraitEvidence(tx, scope, trait, options.actor, options.now)));
  return context.operations;
}

/** Applies a fact under the key its attribute already has (resolveFactKey), saying so in the operations. */
async function applyFactUnderItsKey(context: Context, fact: FactCandidate): Promise<void> {
  const { key, note } = await resolveFactKey(context.tx, context.scope, fact.key, fact.replaces_key);
  // Current facts and traits this statement makes untrue go first (memory/contradictions).
  context.operations.push(...(await retractContradicted(context.tx, context.scope, { ...fact, key }, context)));
  const before = context.operations.length;
  await applyFact(context, { ...fact, key, ...(note ? { keyNote: note } : {}) });
  if (note) for (const operation of context.operations.slice(before)) operation.reason = `${operation.reason} (${note})`;
}

/** A fact under its resolved key; `keyNote` says why the key differs from the extracted one. */
type ResolvedFact = FactCandidate & { keyNote?: string };

const withKeyNote = (reason: string, fact: ResolvedFact) => (fact.keyNote ? `${reason} (${fact.keyNote})` : reason);

async function applyFact(context: Context, fact: ResolvedFact): Promise<void> {
  const { tx, scope } = context;
  // Every version of the key that is not deleted, locked in id order (as every writer of several
  // memories locks them: row-lock-order), then taken oldest first; of two stated at the same instant
  // (two writes in one millisecond) the one written later is the later statement, else a third write
  // would take the replaced one for the current one and leave two current versions.
  const versions = (
    await tx
      .select()
      .from(memories)
      .where(and(sameKey(scope, "semantic", fact.key), or(isNull(memories.expiredAt), isNotNull(memories.supersededBy))))
      .orderBy(asc(memories.id))
      .for("update")
  ).sort((a, b) => a.validAt.getTime() - b.validAt.getTime() || a.version - b.version);
  const prev = versions.filter((row) => row.validAt <= fact.validAt).at(-1);
  const next = versions.find((row) => row.validAt > fact.validAt);
  // Retracted ("I no longer live in Berlin") before this statement: the key held nothing then.
  const retracted = prev !== undefined && prev.supersededBy === null && prev.invalidAt !== null && prev.invalidAt <= fact.validAt;

  if (fact.operation === "DELETE") return retractFact(context, fact, prev);
  if (prev && !retracted && sameStatement(prev, fact)) {
    if (await confirm(context, "fact", prev, fact.sources, "the key already holds this value")) return;
  }
  if (next && sameStatement(next, fact)) {
    // An earlier statement of what the next version says: that version has been true since then.
    await tx.update(memories).set({ validAt: fact.validAt, updatedAt: context.now }).where(eq(memories.id, next.id));
    if (prev && prev.invalidAt?.getTime() === next.validAt.getTime()) {
      await tx.update(memories).set({ invalidAt: fact.validAt, updatedAt: context.now }).where(eq(memories.id, prev.id));
    }
    await addSources(tx, next.id, fact.sources);
    await writeHistory(tx, {
      ...owner(context, next.id),
      operation: "UPDATE",
      before: { validAt: next.validAt },
      after: { validAt: fact.validAt, ...changedBy(context, fact) },
      reason: "an earlier statement of the same value",
    });
    context.operations.push({ op: "UPDATE", kind: "fact", memory_id: next.id, key: fact.key, reason: "valid since an earlier statement" });
    return;
  }
  if (prev || next) return supersede(context, fact, versions, prev, next);

  const duplicate = await findDuplicate(context, fact.content, ["semantic"]);
  if (duplicate && (await confirm(context, "fact", duplicate.row, fact.sources, duplicate.reason))) return;
  const id = randomUUID();
  await insertMemory(
    tx,
    factRow(context, id, fact, { version: 1 }),
    fact.sources,
    context.actor,
    context.now,
    fact.keyNote,
    stated(context, fact),
  );
  context.operations.push({ op: "ADD", kind: "fact", memory_id: id, key: fact.key, reason: "new fact" });
}

/** A new value for a key: the version valid at that time ends, the new one begins. */
async function supersede(
  context: Context,
  fact: ResolvedFact,
  versions: MemoryRecord[],
  prev: MemoryRecord | undefined,
  next: MemoryRecord | undefined,
): Promise<void> {
  const { tx } = context;
  const id = randomUUID();
  const version = Math.max(...versions.map((row) => row.version)) + 1;
  const row = factRow(context, id, fact, {
    version,
    // Older than the current version: true from its statement until the next one, and already superseded.
    ...(next ? { invalidAt: next.validAt, supersededBy: next.id, expiredAt: context.now } : {}),
  });
  const restated = prev !== undefined && prev.invalidAt !== null && prev.invalidAt <= fact.validAt;
  await insertMemory(
    tx,
    row,
    fact.sources,
    context.actor,
    context.now,
    withKeyNote(
      restated
        ? `stated again after ${prev?.id} was retracted`
        : prev
          ? `${fact.operation === "CORRECT" ? "corrects" : "supersedes"} ${prev.id}`
          : `historical version before ${next?.id}`,
      fact,
    ),
    stated(context, fact),
  );
  if (prev && (prev.invalidAt === null || prev.invalidAt > fact.validAt)) {
    const after = { invalidAt: fact.validAt, expiredAt: prev.expiredAt ?? context.now, supersededBy: id };
    await tx
      .update(memories)
      .set({ ...after, updatedAt: context.now })
      .where(eq(memories.id, prev.id));
    await writeHistory(tx, {
      ...owner(context, prev.id),
      operation: "SUPERSEDE",
      before: snapshot(prev),
      after: { ...snapshot({ ...prev, ...after }), ...changedBy(context, fact) },
      reason: `${fact.operation === "CORRECT" ? "corrected" : "superseded"} by ${id}`,
    });
  }
  context.operations.push({
    op: "UPDATE",
    kind: "fact",
    memory_id: id,
    key: fact.key,
    reason: next ? "historical version of a changed fact" : restated ? "stated again after a retraction" : "supersedes the previous value",
  });

  const [earlier, later] = next ? [row as MemoryRecord, next] : [prev as MemoryRecord, row as MemoryRecord];
  if (earlier && later && attitudeFlipped(earlier.value, later.value)) {
    await recordAttitudeChange(context, earlier, later, fact.sources);
    // The trait of the old attitude no longer agrees with the facts (when this is the latest statement).
    if (!next) await dissolveTraitOfOldAttitude(context, earlier, fact);
  }
}

/** "Loved cats, now hates them": the trait "likes:cats" goes with the fact it came from. */
async function dissolveTraitOfOldAttitude(context: Context, earlier: MemoryRecord, fact: FactCandidate): Promise<void> {
  const polarity = (earlier.value as { polarity: number }).polarity;
  if (!earlier.key?.startsWith("attitude:")) return;
  const key = `${polarity > 0 ? "likes" : "dislikes"}:${earlier.key.slice("attitude:".length)}`;
  const trait = await currentTrait(context.tx, context.scope, key);
  if (!trait || (trait.lastReinforcedAt !== null && trait.lastReinforcedAt > fact.validAt)) return;
  const evidence = {
    subtype: "preference" as const,
    key,
    content: fact.content,
    direction: "contradicting" as const,
    quality: "A" as const,
    sources: fact.sources,
    validAt: fact.validAt,
    sessionId: fact.sessionId,
  };
  await dissolveTrait(context.tx, context.scope, trait, {
    actor: context.actor,
    now: context.now,
    reason: `the attitude fact changed: ${fact.content}`,
    evidence,
  });
  context.operations.push({ op: "UPDATE", kind: "trait", memory_id: trait.id, key, reason: "dissolved: the attitude changed" });
}

async function retractFact(context: Context, fact: FactCandidate, prev: MemoryRecord | undefined): Promise<void> {
  if (!prev || (prev.invalidAt !== null && prev.invalidAt <= fact.validAt)) {
    context.operations.push({ op: "NOOP", kind: "fact", memory_id: prev?.id ?? "", key: fact.key, reason: "nothing to retract" });
    return;
  }
  await context.tx.update(memories).set({ invalidAt: fact.validAt, updatedAt: context.now }).where(eq(memories.id, prev.id));
  await writeHistory(context.tx, {
    ...owner(context, prev.id),
    operation: "DELETE",
    before: snapshot(prev),
    after: { invalidAt: fact.validAt, retractedBy: fact.sources, ...changedBy(context, fact) },
    reason: fact.content,
  });
  context.operations.push({ op: "DELETE", kind: "fact", memory_id: prev.id, key: fact.key, reason: "retracted by the user" });
}

async function applyInsight(context: Context, insight: InsightCandidate): Promise<void> {
  const duplicate = await findDuplicate(context, insight.content, ["insight"]);
  if (duplicate && (await confirm(context, "insight", duplicate.row, insight.sources, duplicate.reason))) return;
  const id = await insertInsight(context, {
    subtype: "insight",
    content: insight.content,
    importance: insight.importance,
    validAt: insight.validAt,
    sessionId: insight.sessionId,
    sources: insight.sources,
  });
  context.operations.push({ op: "ADD", kind: "insight", memory_id: id, key: null, reason: "new insight" });
}

/** "Loved cats, now hates them" is itself worth remembering. */
async function recordAttitudeChange(context: Context, earlier: MemoryRecord, later: MemoryRecord, sources: SourceRef[]): Promise<void> {
  const before = earlier.value as { attitude: string; object: string };
  const after = later.value as { attitude: string };
  const content = `User's attitude towards ${before.object} changed from "${before.attitude}" (${day(earlier.validAt)}) to "${after.attitude}" (${day(later.validAt)}).`;
  if (await findDuplicate(context, content, ["insight"], false)) return;
  const id = await insertInsight(context, {
    subtype: "reflection",
    content,
    key: earlier.key,
    importance: 0.7,
    validAt: later.validAt,
    sessionId: later.sessionId,
    sources,
    metadata: { from_memory: earlier.id, to_memory: later.id },
    reason: "attitude changed",
  });
  context.operations.push({ op: "ADD", kind: "insight", memory_id: id, key: earlier.key, reason: "attitude change" });
}

async function insertInsight(
  context: Context,
  insight: {
    subtype: string;
    content: string;
    key?: string | null;
    importance: number;
    validAt: Date;
    sessionId: string | null;
    sources: SourceRef[];
    metadata?: Record<string, unknown>;
    reason?: string;
  },
): Promise<string> {
  const id = randomUUID();
  await insertMemory(
    context.tx,
    {
      id,
      appId: context.scope.appId,
      userId: context.scope.userId,
      sessionId: insight.sessionId,
      type: "insight",
      subtype: insight.subtype,
      content: insight.content,
      key: insight.key ?? null,
      importance: insight.importance,
      validAt: insight.validAt,
      contentHash: contentHash(insight.content),
      metadata: { ...insight.metadata, ...provenance(context) },
      ...embeddingOf(context, insight.content),
    },
    insight.sources,
    context.actor,
    context.now,
    insight.reason,
  );
  return id;
}

/** How much of the distance to certainty one re-confirmation closes. */
const CONFIRMATION_GAIN = 0.3;

/**
 * A re-confirmation (NOOP): the statement's sources join the memory, and being said again counts
 * as a use — access count and time move, confidence rises — so what a user keeps saying does not
 * decay away. A historical version takes the sources only. False when the memory stopped being
 * current in the meantime (forgotten by a decay pass in another transaction): the caller adds it anew.
 */
async function confirm(
  context: Context,
  kind: "fact" | "insight",
  row: MemoryRecord,
  sources: SourceRef[],
  reason: string,
): Promise<boolean> {
  if (row.expiredAt === null) {
    const refreshed = await context.tx
      .update(memories)
      .set({
        accessCount: sql`${memories.accessCount} + 1`,
        lastAccessedAt: context.now,
        confidence: sql`least(1, ${memories.confidence} + (1 - ${memories.confidence}) * ${CONFIRMATION_GAIN})`,
        updatedAt: context.now,
      })
      .where(and(eq(memories.id, row.id), isNull(memories.expiredAt)))
      .returning({ id: memories.id });
    if (refreshed.length === 0) return false;
  }
  await addSources(context.tx, row.id, sources);
  context.operations.push({ op: "NOOP", kind, memory_id: row.id, key: row.key, reason });
  return true;
}

/** Same content hash, or (with vectors) cosine similarity above the duplicate threshold. */
async function findDuplicate(
  context: Context,
  content: string,
  types: string[],
  bySimilarity = true,
): Promise<{ row: MemoryRecord; reason: string } | null> {
  const { tx, scope } = context;
  const current = and(
    eq(memories.appId, scope.appId),
    eq(memories.userId, scope.userId),
    inArray(memories.type, types as MemoryRecord["type"][]),
    isNull(memories.expiredAt),
  );
  const [sameHash] = await tx
    .select()
    .from(memories)
    .where(and(current, eq(memories.contentHash, contentHash(content))))
    .limit(1);
  if (sameHash) return { row: sameHash, reason: "same content" };
  const vector = context.vectors.get(content);
  if (!bySimilarity || !vector) return null;
  const nearest = await nearestCurrentMemory(tx, { scope, types, vector, model: context.model });
  if (!nearest || nearest.similarity <= DUPLICATE_SIMILARITY) return null;
  const [row] = await tx.select().from(memories).where(eq(memories.id, nearest.id));
  return row ? { row, reason: `similarity ${nearest.similarity.toFixed(3)} > ${DUPLICATE_SIMILARITY}` } : null;
}

function factRow(context: Context, id: string, fact: ResolvedFact, extra: Partial<MemoryRecord>) {
  return {
    id,
    appId: context.scope.appId,
    userId: context.scope.userId,
    sessionId: fact.sessionId,
    type: "semantic" as const,
    subtype: fact.type,
    content: fact.content,
    key: fact.key,
    value: fact.value,
    confidence: fact.confidence,
    importance: fact.importance,
    validAt: fact.validAt,
    contentHash: contentHash(fact.content),
    metadata: { ...provenance(context), ...(fact.keyNote ? { key_note: fact.keyNote } : {}) },
    ...embeddingOf(context, fact.content),
    ...extra,
  };
}

function embeddingOf(context: Context, content: string) {
  const vector = context.vectors.get(content);
  return vector ? { embedding: vector, embeddingModel: context.model, embeddedAt: context.now } : {};
}

function sameStatement(row: MemoryRecord, fact: FactCandidate): boolean {
  return row.contentHash === contentHash(fact.content) || JSON.stringify(row.value) === JSON.stringify(fact.value);
}

function attitudeFlipped(before: unknown, after: unknown): boolean {
  const polarity = (value: unknown) =>
    value && typeof value === "object" && typeof (value as { polarity?: unknown }).polarity === "number"
      ? (value as { polarity: number }).polarity
      : null;
  const [a, b] = [polarity(before), polarity(after)];
  return a !== null && b !== null && a !== b && typeof (before as { object?: unknown }).object === "string";
}

/**
 * Where a memory comes from: whether it can be derived again from the log (rebuild keeps
 * API-written ones), and which extractor read it.
 */
function provenance(context: Context): { origin: "api" | "log"; extractor?: Extractor } {
  return { origin: context.actor === "api" ? "api" : "log", ...(context.extractor ? { extractor: context.extractor } : {}) };
}

/** What a history row of a change says of the statement that made it: the extractor, and the operation it stated. */
function changedBy(context: Context, fact: FactCandidate): { extractor?: Extractor; stated_operation?: string } {
  return context.extractor ? { extractor: context.extractor, stated_operation: fact.operation } : {};
}

/** The operation the extractor stated, for a new memory's ADD row (the extractor itself is in its metadata). */
function stated(context: Context, fact: FactCandidate): Record<string, unknown> | undefined {
  return context.extractor ? { stated_operation: fact.operation } : undefined;
}

function owner(context: Context, memoryId: string) {
  return { memoryId, appId: context.scope.appId, userId: context.scope.userId, actor: context.actor, at: context.now };
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}
