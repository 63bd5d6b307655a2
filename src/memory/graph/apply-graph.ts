import type { Queryable } from "../../db/database.js";
import { ANY_OBJECT, USER_SUBJECT } from "../../providers/extraction.js";
import type { Embedder } from "../../providers/types.js";
import { redactedAmong } from "../../sessions/redacted-events.js";
import { nameKey } from "../../vocabulary/entity-names.js";
import { predicateSpec } from "../../vocabulary/graph-predicates.js";
import type { Scope } from "../write/operations.js";
import { EntityIndex, type KnownNode } from "./entity-index.js";
import { resolveEntity } from "./entity-resolution.js";
import { addNames, createEntity, type EntityVector, mergeEntities, recordMentions, renameEntity } from "./entity-writes.js";
import type { EntityCandidate, GraphBatch, GraphEvent } from "./graph-batch.js";
import type { GraphWriter } from "./graph-history.js";
import { mentionsIn } from "./mentions.js";
import { applyRelation, type GraphOperation } from "./relation-writes.js";

/** The user's node goes by this until a name of theirs is known. */
export const SELF_PLACEHOLDER = "User";

/** The predicate that names its subject ("user name Ana"): a name of the node, not an edge. */
const NAMED = "name";

/** Vectors of the batch's entity descriptions (name and summary), by name; entities without a summary have none. */
export type EntityVectors = Map<string, EntityVector>;

/**
 * Embeds the descriptions of the batch's entities that come with a summary, before the
 * transaction (an embedding call never holds the user's lock); entity resolution compares them.
 *
 * @example
 * const vectors = await embedEntities(embedder, batch);
 */
export async function embedEntities(embedder: Embedder, batch: GraphBatch): Promise<EntityVectors> {
  const described = batch.entities.filter((entity) => entity.summary);
  if (described.length === 0) return new Map();
  const vectors = await embedder.embed(described.map(description));
  return new Map(described.map((entity, index) => [entity.name, { values: vectors[index] as number[], model: embedder.model }]));
}

const description = (entity: EntityCandidate) => `${entity.name} (${entity.kind}): ${entity.summary}`;

/**
 * Writes one chunk's entity graph inside the chunk's unit of work (the caller holds the user's
 * lock): the participants who spoke (a user's turn is the user's own node, a named participant's
 * their person), the entities extracted — each resolved to the user's node for it, or made —
 * the relations, with the facts' supersede and retraction semantics, and every mention of a known
 * entity in the chunk's turns. Anything citing an event redacted since it was read is left out.
 *
 * @example
 * const operations = await applyGraph(tx, { appId, userId }, batch, vectors, { actor: "deep-reflection", now });
 */
export async function applyGraph(
  tx: Queryable,
  scope: Scope,
  batch: GraphBatch,
  vectors: EntityVectors,
  options: { actor: string; now: Date },
): Promise<GraphOperation[]> {
  const writer: GraphWriter = { tx, ...scope, actor: options.actor, now: options.now };
  const index = await EntityIndex.load(tx, scope);
  const redacted = await redactedAmong(
    tx,
    batch.events.map((event) => event.id),
  );
  const events = batch.events.filter((event) => event.content !== "" && !redacted.has(event.id));
  const current = <T extends { sources: { event_id: string }[] }>(item: T) => !item.sources.some((source) => redacted.has(source.event_id));
  const operations: GraphOperation[] = [];

  for (const event of events) await recordSpeaker(writer, index, event);
  for (const entity of batch.entities.filter(current)) {
    const node = await resolveEntity(writer, index, { ...entity, vector: vectors.get(entity.name) });
    const names = [entity.name, ...entity.aliases, ...(entity.renamed_from ? [entity.renamed_from] : [])];
    await recordMentions(
      writer,
      entity.sources.flatMap((source) => {
        const event = events.find((found) => found.id === source.event_id);
        if (!event) return [];
        return [
          { entityId: node.id, source, at: event.occurredAt, surface: names.find((name) => event.content.includes(name)) ?? entity.name },
        ];
      }),
    );
  }
  for (const relation of batch.relations.filter(current)) {
    const subject = await endpoint(writer, index, relation.subject, relation.validAt, "person");
    if (relation.predicate === NAMED) {
      await nameNode(writer, index, subject, relation.object, relation.validAt);
      continue;
    }
    const object = await objectOf(writer, index, relation.predicate, relation.object, relation.validAt);
    operations.push(await applyRelation(writer, { ...relation, subjectId: subject.id, object }));
  }
  for (const event of events) {
    const source = { session_id: event.sessionId, event_id: event.id, seq: event.seq };
    await recordMentions(writer, mentionsIn(event.content, source, event.occurredAt, index));
  }
  return operations;
}

/** The speaker of a turn: the user's own node for the user's turns (named, when the event names them), else the named participant. */
async function recordSpeaker(writer: GraphWriter, index: EntityIndex, event: GraphEvent): Promise<void> {
  const speaker = event.speaker?.trim();
  if (!speaker) return;
  const node =
    event.role === "user"
      ? await nameNode(writer, index, await ownNode(writer, index, event.occurredAt), speaker, event.occurredAt)
      : await resolveEntity(writer, index, { name: speaker, kind: "person", validAt: event.occurredAt });
  const source = { session_id: event.sessionId, event_id: event.id, seq: event.seq };
  await recordMentions(writer, [{ entityId: node.id, source, at: event.occurredAt, surface: speaker, said: true }]);
}

/** The user's node, made (as "User") the first time a relation or a turn needs it. */
async function ownNode(writer: GraphWriter, index: EntityIndex, validAt: Date): Promise<KnownNode> {
  return index.self ?? createEntity(writer, index, { name: SELF_PLACEHOLDER, kind: "person", self: true, validAt });
}

/** `name` is a name of the node: a node already called so is the same one (merged), and the placeholder gives way to it. */
async function nameNode(writer: GraphWriter, index: EntityIndex, node: KnownNode, name: string, validAt: Date): Promise<KnownNode> {
  let named = node;
  for (const twin of index.named([name]).filter((found) => found.id !== node.id && (found.kind === "person" || found.kind === "other")))
    named = await mergeEntities(writer, index, named, twin, `${name} is a name of ${named.name}`);
  if (named.self && named.name === SELF_PLACEHOLDER) return renameEntity(writer, index, named, name, validAt, `the user's name is ${name}`);
  await addNames(writer, index, named, [name], validAt, `also called ${name}`);
  return index.get(named.id) ?? named;
}

/** The node a relation's subject names: the user, a known name, or a new entity of `kind`. */
async function endpoint(
  writer: GraphWriter,
  index: EntityIndex,
  name: string,
  validAt: Date,
  kind: "person" | "other",
): Promise<KnownNode> {
  if (nameKey(name) === USER_SUBJECT) return ownNode(writer, index, validAt);
  const [known] = index.named([name]);
  return known ?? resolveEntity(writer, index, { name, kind, validAt });
}

/**
 * A relation's object: whatever holds it (a retraction that names none), a known entity, a new
 * entity of the kind its predicate takes (`lives_in` a place), a capitalised name for a predicate
 * the vocabulary does not know, else a value.
 */
async function objectOf(writer: GraphWriter, index: EntityIndex, predicate: string, object: string, validAt: Date) {
  if (object === ANY_OBJECT) return "any" as const;
  if (nameKey(object) === USER_SUBJECT) return { entityId: (await ownNode(writer, index, validAt)).id };
  const spec = predicateSpec(predicate);
  const known = index.named([object]);
  const fitting = known.find((node) => node.kind === spec.object) ?? known[0];
  if (fitting) return { entityId: fitting.id };
  if (spec.object === "value" || (spec.object === "other" && !/^\p{Lu}/u.test(object))) return { value: object };
  return { entityId: (await resolveEntity(writer, index, { name: object, kind: spec.object, validAt })).id };
}
