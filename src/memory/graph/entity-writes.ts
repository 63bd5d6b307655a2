import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { entities, entityMentions, relations } from "../../db/schema/index.js";
import type { EntityKind } from "../../vocabulary/entity-kinds.js";
import { nameKey, nameKeys } from "../../vocabulary/entity-names.js";
import type { SourceRef } from "../provenance.js";
import type { EntityIndex, KnownNode } from "./entity-index.js";
import { type GraphWriter, writeGraphHistory } from "./graph-history.js";

/** The folded keys of a name and its aliases: what mentions and queries find the entity by. */
export const keysOf = (name: string, aliases: readonly string[]) => [...new Set([name, ...aliases].flatMap(nameKeys))];

/** A vector of an entity's description, made before the transaction. */
export interface EntityVector {
  values: number[];
  model: string;
}

/** A new current entity (history ADD). */
export async function createEntity(
  writer: GraphWriter,
  index: EntityIndex,
  entity: {
    name: string;
    kind: EntityKind;
    self?: boolean;
    aliases?: string[];
    summary?: string | null;
    validAt: Date;
    vector?: EntityVector | undefined;
  },
): Promise<KnownNode> {
  const aliases = distinctNames(entity.name, entity.aliases ?? []);
  const node: KnownNode = {
    id: randomUUID(),
    name: entity.name,
    kind: entity.kind,
    self: entity.self ?? false,
    aliases,
    keys: keysOf(entity.name, aliases),
    validAt: entity.validAt,
    hasEmbedding: entity.vector !== undefined,
  };
  await writer.tx.insert(entities).values({
    id: node.id,
    appId: writer.appId,
    userId: writer.userId,
    name: node.name,
    nameKey: nameKey(node.name),
    kind: node.kind,
    self: node.self,
    aliases,
    keys: node.keys,
    summary: entity.summary ?? null,
    ...(entity.vector ? { embedding: entity.vector.values, embeddingModel: entity.vector.model } : {}),
    validAt: entity.validAt,
    createdAt: writer.now,
    updatedAt: writer.now,
  });
  index.put(node);
  await writeGraphHistory(writer, {
    entityId: node.id,
    operation: "ADD",
    after: { name: node.name, kind: node.kind, aliases },
    reason: "first named",
  });
  return node;
}

/** Names the entity goes by besides `name`, each once (by folded key). */
function distinctNames(name: string, names: readonly string[]): string[] {
  const seen = new Set([nameKey(name)]);
  return names.filter((alias) => {
    const key = nameKey(alias);
    if (key === "" || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Other names for the entity (history ALIAS); an earlier first mention moves its `valid_at` back. */
export async function addNames(
  writer: GraphWriter,
  index: EntityIndex,
  node: KnownNode,
  names: readonly string[],
  validAt: Date,
  reason: string,
): Promise<void> {
  const added = distinctNames(node.name, [...node.aliases, ...names]).slice(node.aliases.length);
  const earlier = validAt < node.validAt;
  if (added.length === 0 && !earlier) return;
  const aliases = [...node.aliases, ...added];
  const updated = { ...node, aliases, keys: keysOf(node.name, aliases), validAt: earlier ? validAt : node.validAt };
  await writer.tx
    .update(entities)
    .set({ aliases, keys: updated.keys, validAt: updated.validAt, updatedAt: writer.now })
    .where(eq(entities.id, node.id));
  index.put(updated);
  if (added.length > 0)
    await writeGraphHistory(writer, {
      entityId: node.id,
      operation: "ALIAS",
      before: { aliases: node.aliases },
      after: { aliases },
      reason,
    });
}

/**
 * The entity is called `name` from `validAt` on (history RENAME, with that time): the old name
 * stays as an alias, so a mention by it still finds the entity.
 */
export async function renameEntity(
  writer: GraphWriter,
  index: EntityIndex,
  node: KnownNode,
  name: string,
  validAt: Date,
  reason: string,
): Promise<KnownNode> {
  if (nameKey(name) === nameKey(node.name)) return node;
  const aliases = distinctNames(name, [node.name, ...node.aliases]);
  const renamed = { ...node, name, aliases, keys: keysOf(name, aliases) };
  await writer.tx
    .update(entities)
    .set({ name, nameKey: nameKey(name), aliases, keys: renamed.keys, updatedAt: writer.now })
    .where(eq(entities.id, node.id));
  index.put(renamed);
  await writeGraphHistory(writer, {
    entityId: node.id,
    operation: "RENAME",
    before: { name: node.name },
    after: { name, valid_at: validAt.toISOString() },
    reason,
  });
  return renamed;
}

/**
 * Two nodes found to be one (history MERGE on both): the absorbed node's relations, mentions and
 * names move to the survivor, and the absorbed node is expired pointing at it (`merged_into`), so
 * a read of its id can say where it went. An edge between the two is dropped (it would be a loop).
 * The user's own node is always the survivor (the caller passes it so).
 */
export async function mergeEntities(
  writer: GraphWriter,
  index: EntityIndex,
  survivor: KnownNode,
  absorbed: KnownNode,
  reason: string,
): Promise<KnownNode> {
  const { tx } = writer;
  await tx
    .delete(relations)
    .where(
      sql`(${relations.subjectId} = ${survivor.id} AND ${relations.objectId} = ${absorbed.id}) OR (${relations.subjectId} = ${absorbed.id} AND ${relations.objectId} = ${survivor.id})`,
    );
  await tx.update(relations).set({ subjectId: survivor.id, updatedAt: writer.now }).where(eq(relations.subjectId, absorbed.id));
  await tx.update(relations).set({ objectId: survivor.id, updatedAt: writer.now }).where(eq(relations.objectId, absorbed.id));
  await tx.execute(
    sql`INSERT INTO entity_mentions (entity_id, event_id, session_id, seq, surface, said, occurred_at)
        SELECT ${survivor.id}, event_id, session_id, seq, surface, said, occurred_at FROM entity_mentions WHERE entity_id = ${absorbed.id}
        ON CONFLICT (entity_id, event_id, surface) DO UPDATE SET said = entity_mentions.said OR excluded.said`,
  );
  await tx.delete(entityMentions).where(eq(entityMentions.entityId, absorbed.id));
  await tx
    .update(entities)
    .set({ expiredAt: writer.now, mergedInto: survivor.id, updatedAt: writer.now })
    .where(eq(entities.id, absorbed.id));
  index.remove(absorbed.id);
  await writeGraphHistory(writer, { entityId: absorbed.id, operation: "MERGE", after: { merged_into: survivor.id }, reason });
  await writeGraphHistory(writer, {
    entityId: survivor.id,
    operation: "MERGE",
    after: { absorbed: absorbed.id, name: absorbed.name },
    reason,
  });
  const earliest = absorbed.validAt < survivor.validAt ? absorbed.validAt : survivor.validAt;
  await addNames(writer, index, survivor, [absorbed.name, ...absorbed.aliases], earliest, `merged ${absorbed.id}`);
  return index.get(survivor.id) ?? survivor;
}

/** Mentions of entities in events (`said`: the entity said it), each (entity, event, name) once. */
export async function recordMentions(
  writer: GraphWriter,
  mentions: { entityId: string; source: SourceRef; at: Date; surface: string; said?: boolean }[],
): Promise<void> {
  if (mentions.length === 0) return;
  await writer.tx
    .insert(entityMentions)
    .values(
      mentions.map((mention) => ({
        entityId: mention.entityId,
        eventId: mention.source.event_id,
        sessionId: mention.source.session_id,
        seq: mention.source.seq,
        surface: mention.surface,
        said: mention.said ?? false,
        occurredAt: mention.at,
      })),
    )
    .onConflictDoUpdate({
      target: [entityMentions.entityId, entityMentions.eventId, entityMentions.surface],
      set: { said: sql`${entityMentions.said} OR excluded.said` },
    });
}

/** A guessed kind made the stated one (history UPDATE): `other` → anything, a person the tagger guessed → a pet. */
export async function refineKind(
  writer: GraphWriter,
  index: EntityIndex,
  node: KnownNode,
  kind: EntityKind,
  reason: string,
): Promise<KnownNode> {
  const refines = node.kind !== kind && !node.self && (node.kind === "other" || (node.kind === "person" && kind === "pet"));
  if (!refines) return node;
  await writer.tx.update(entities).set({ kind, updatedAt: writer.now }).where(eq(entities.id, node.id));
  const refined = { ...node, kind };
  index.put(refined);
  await writeGraphHistory(writer, { entityId: node.id, operation: "UPDATE", before: { kind: node.kind }, after: { kind }, reason });
  return refined;
}
