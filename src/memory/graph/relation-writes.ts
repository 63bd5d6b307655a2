import { randomUUID } from "node:crypto";
import { and, asc, eq, isNotNull, isNull, or, sql } from "drizzle-orm";
import { relationSources, relations } from "../../db/schema/index.js";
import { predicateSpec } from "../../vocabulary/graph-predicates.js";
import type { SourceRef } from "../provenance.js";
import { type GraphWriter, writeGraphHistory } from "./graph-history.js";

type RelationRow = typeof relations.$inferSelect;

/** A relation to apply, its ends resolved: an entity object, a value, or (a retraction only) whatever holds it. */
export interface ResolvedRelation {
  subjectId: string;
  predicate: string;
  object: { entityId: string } | { value: string } | "any";
  content: string;
  confidence: number;
  operation: "ADD" | "DELETE";
  validAt: Date;
  sources: SourceRef[];
}

/** What applying one relation did, for the chunk's job result. */
export interface GraphOperation {
  op: "ADD" | "UPDATE" | "DELETE" | "NOOP";
  relation_id: string | null;
  reason: string;
}

const sameObject = (row: RelationRow, relation: ResolvedRelation) =>
  relation.object === "any" ||
  ("entityId" in relation.object
    ? row.objectId === relation.object.entityId
    : row.objectValue !== null && row.objectValue.toLowerCase() === relation.object.value.toLowerCase());

/**
 * Applies a relation with the facts' semantics, under the user's lock the caller holds:
 * - the same statement again is a NOOP that adds its sources (and a little confidence);
 * - for an exclusive predicate (`lives_in`, `works_at`, `partner`…) a new object supersedes the
 *   version valid then: it gets `invalid_at` = the new statement's time, `expired_at` and
 *   `superseded_by`, and stays for as-of reads; a statement older than the current version becomes
 *   a historical version instead, so the later statement wins whatever the processing order;
 * - an earlier statement of what the next version says moves that version's `valid_at` back;
 * - `DELETE` ends the version valid then (`invalid_at`), which as-of reads still see;
 * - a relation restated after its retraction is a new version.
 * The versions of one statement (subject, predicate, and for a non-exclusive predicate the object)
 * are locked in id order before any is changed.
 */
export async function applyRelation(writer: GraphWriter, relation: ResolvedRelation): Promise<GraphOperation> {
  const { tx } = writer;
  const exclusive = predicateSpec(relation.predicate).exclusive;
  const versions = (
    await tx
      .select()
      .from(relations)
      .where(
        and(
          eq(relations.subjectId, relation.subjectId),
          eq(relations.predicate, relation.predicate),
          or(isNull(relations.expiredAt), isNotNull(relations.supersededBy)),
        ),
      )
      .orderBy(asc(relations.id))
      .for("update")
  )
    .filter((row) => exclusive || sameObject(row, relation))
    .sort((a, b) => a.validAt.getTime() - b.validAt.getTime());
  const prev = versions.filter((row) => row.validAt <= relation.validAt).at(-1);
  const next = versions.find((row) => row.validAt > relation.validAt);
  const ended = prev !== undefined && prev.invalidAt !== null && prev.invalidAt <= relation.validAt;

  if (relation.operation === "DELETE") {
    if (!prev || ended || !sameObject(prev, relation)) return { op: "NOOP", relation_id: prev?.id ?? null, reason: "nothing to retract" };
    await tx.update(relations).set({ invalidAt: relation.validAt, updatedAt: writer.now }).where(eq(relations.id, prev.id));
    await addRelationSources(writer, prev.id, relation.sources);
    await writeGraphHistory(writer, {
      entityId: prev.subjectId,
      relationId: prev.id,
      operation: "DELETE",
      before: snapshot(prev),
      after: { invalidAt: relation.validAt },
      reason: relation.content,
    });
    return { op: "DELETE", relation_id: prev.id, reason: "retracted" };
  }
  if (relation.object === "any") return { op: "NOOP", relation_id: null, reason: "a relation names its object" };
  if (prev && !ended && sameObject(prev, relation)) {
    await tx
      .update(relations)
      .set({ confidence: sql`least(1, ${relations.confidence} + (1 - ${relations.confidence}) * 0.3)`, updatedAt: writer.now })
      .where(eq(relations.id, prev.id));
    await addRelationSources(writer, prev.id, relation.sources);
    return { op: "NOOP", relation_id: prev.id, reason: "already holds" };
  }
  if (next && sameObject(next, relation)) {
    await tx.update(relations).set({ validAt: relation.validAt, updatedAt: writer.now }).where(eq(relations.id, next.id));
    if (prev && prev.invalidAt?.getTime() === next.validAt.getTime())
      await tx.update(relations).set({ invalidAt: relation.validAt, updatedAt: writer.now }).where(eq(relations.id, prev.id));
    await addRelationSources(writer, next.id, relation.sources);
    await writeGraphHistory(writer, {
      entityId: next.subjectId,
      relationId: next.id,
      operation: "UPDATE",
      before: { validAt: next.validAt },
      after: { validAt: relation.validAt },
      reason: "an earlier statement of the same relation",
    });
    return { op: "UPDATE", relation_id: next.id, reason: "valid since an earlier statement" };
  }
  const id = randomUUID();
  const historical = exclusive && next !== undefined;
  await tx.insert(relations).values({
    id,
    appId: writer.appId,
    userId: writer.userId,
    subjectId: relation.subjectId,
    predicate: relation.predicate,
    objectId: "entityId" in relation.object ? relation.object.entityId : null,
    objectValue: "value" in relation.object ? relation.object.value : null,
    content: relation.content,
    confidence: relation.confidence,
    validAt: relation.validAt,
    ...(historical ? { invalidAt: next.validAt, expiredAt: writer.now, supersededBy: next.id } : {}),
    createdAt: writer.now,
    updatedAt: writer.now,
  });
  await addRelationSources(writer, id, relation.sources);
  const replaces = exclusive && prev && !ended ? prev : undefined;
  await writeGraphHistory(writer, {
    entityId: relation.subjectId,
    relationId: id,
    operation: "ADD",
    after: { predicate: relation.predicate, content: relation.content, validAt: relation.validAt },
    reason: historical
      ? `historical version before ${next.id}`
      : replaces
        ? `supersedes ${replaces.id}`
        : ended
          ? `stated again after ${prev?.id} ended`
          : "new relation",
  });
  if (replaces) {
    const after = { invalidAt: relation.validAt, expiredAt: replaces.expiredAt ?? writer.now, supersededBy: id };
    await tx
      .update(relations)
      .set({ ...after, updatedAt: writer.now })
      .where(eq(relations.id, replaces.id));
    await writeGraphHistory(writer, {
      entityId: replaces.subjectId,
      relationId: replaces.id,
      operation: "SUPERSEDE",
      before: snapshot(replaces),
      after,
      reason: `superseded by ${id}`,
    });
  }
  return {
    op: historical || replaces ? "UPDATE" : "ADD",
    relation_id: id,
    reason: historical ? "historical version" : replaces ? "supersedes the previous object" : "new relation",
  };
}

async function addRelationSources(writer: GraphWriter, relationId: string, sources: SourceRef[]): Promise<void> {
  if (sources.length === 0) return;
  await writer.tx
    .insert(relationSources)
    .values(sources.map((source) => ({ relationId, eventId: source.event_id, sessionId: source.session_id, seq: source.seq })))
    .onConflictDoNothing();
}

function snapshot(row: RelationRow): Record<string, unknown> {
  const { predicate, objectId, objectValue, content, validAt, invalidAt, expiredAt, supersededBy } = row;
  return { predicate, objectId, objectValue, content, validAt, invalidAt, expiredAt, supersededBy };
}
