import { type SQL, sql } from "drizzle-orm";
import { queryRows } from "../../db/database.js";
import { toVectorLiteral } from "../../db/vector.js";
import type { EntityKind } from "../../vocabulary/entity-kinds.js";
import { nameKey, nameKeys } from "../../vocabulary/entity-names.js";
import type { EntityIndex, KnownNode } from "./entity-index.js";
import { addNames, createEntity, type EntityVector, mergeEntities, refineKind, renameEntity } from "./entity-writes.js";
import type { GraphWriter } from "./graph-history.js";

/** Cosine similarity of two entities' descriptions above which, with a name in common, they are one. */
export const SAME_ENTITY_SIMILARITY = 0.92;

/** A name to resolve to one of the user's entities. */
export interface NamedEntity {
  name: string;
  kind: EntityKind;
  aliases?: readonly string[];
  summary?: string | null | undefined;
  renamed_from?: string | null | undefined;
  validAt: Date;
  vector?: EntityVector | undefined;
}

/** Kinds that may name the same thing: a guess (`other`) and anything, a person and a pet (pets have people's names). */
const compatible = (a: EntityKind, b: EntityKind) =>
  a === b || a === "other" || b === "other" || (a === "person" && b === "pet") || (a === "pet" && b === "person");

/**
 * The user's entity a name stands for, made when there is none (issue 40: never two current nodes
 * for one person). In order: a rename ("Kim now goes by Kai": Kim's node is called Kai, and a
 * node already called Kai is the same one); the node any of its names already names (when they
 * name two, the names are the evidence that the two are one: merged, history MERGE); a first name
 * alone for the one person whose full name starts with it (or the reverse); a description whose
 * embedding is within SAME_ENTITY_SIMILARITY of a node's that shares a word of its name. Every name
 * it came with is added to the node's.
 *
 * @example
 * const maya = await resolveEntity(writer, index, { name: "Maya", kind: "person", validAt });
 */
export async function resolveEntity(writer: GraphWriter, index: EntityIndex, entity: NamedEntity): Promise<KnownNode> {
  const names = [entity.name, ...(entity.aliases ?? [])];
  const reason = `named "${entity.name}"${entity.aliases?.length ? ` also "${entity.aliases.join('", "')}"` : ""}`;
  const candidates = (found: KnownNode[]) => found.filter((node) => compatible(node.kind, entity.kind));
  if (entity.renamed_from) {
    const [old] = candidates(index.named([entity.renamed_from]));
    if (old) {
      let node = old;
      for (const twin of candidates(index.named([entity.name])).filter((found) => found.id !== old.id))
        node = await merged(writer, index, node, twin, `${entity.renamed_from} is now called ${entity.name}`);
      node = await renameEntity(writer, index, node, entity.name, entity.validAt, `${entity.renamed_from} is now called ${entity.name}`);
      return settle(writer, index, node, entity, names, reason);
    }
  }
  const matches = candidates(index.named(names));
  if (matches.length > 0) {
    const canonical = nameKey(entity.name);
    const survivor =
      matches.find((node) => node.self) ??
      matches.find((node) => nameKey(node.name) === canonical) ??
      [...matches].sort((a, b) => a.validAt.getTime() - b.validAt.getTime())[0];
    let node = survivor as KnownNode;
    for (const twin of matches.filter((found) => found.id !== node.id))
      node = await merged(writer, index, node, twin, `one entity named "${names.join('", "')}" (${reason})`);
    return settle(writer, index, node, entity, names, reason);
  }
  const byName = entity.kind === "person" || entity.kind === "pet" ? byFirstName(index, entity) : undefined;
  const similar = byName ?? (await byDescription(writer, index, entity));
  if (similar) return settle(writer, index, similar, entity, names, reason);
  return createEntity(writer, index, {
    name: entity.name,
    kind: entity.kind,
    aliases: [...(entity.aliases ?? [])],
    summary: entity.summary ?? null,
    validAt: entity.validAt,
    vector: entity.vector,
  });
}

/** The user's own node survives every merge. */
function merged(writer: GraphWriter, index: EntityIndex, node: KnownNode, twin: KnownNode, reason: string): Promise<KnownNode> {
  return twin.self ? mergeEntities(writer, index, twin, node, reason) : mergeEntities(writer, index, node, twin, reason);
}

/** The names the entity came with join the node's; a guessed kind (`other`, a person who is a pet) becomes the stated one. */
async function settle(
  writer: GraphWriter,
  index: EntityIndex,
  node: KnownNode,
  entity: NamedEntity,
  names: string[],
  reason: string,
): Promise<KnownNode> {
  await addNames(writer, index, node, names, entity.validAt, reason);
  return refineKind(writer, index, index.get(node.id) ?? node, entity.kind, reason);
}

/** "Maya" for the one person called "Maya …", or "Maya Lopez" for the one called just "Maya". */
function byFirstName(index: EntityIndex, entity: NamedEntity): KnownNode | undefined {
  const key = nameKeys(entity.name).at(-1) as string;
  const words = key.split(" ");
  const found = index
    .all()
    .filter((node) => compatible(node.kind, entity.kind) && !node.self)
    .filter((node) =>
      words.length === 1
        ? node.keys.some((held) => held.startsWith(`${key} `))
        : node.keys.some((held) => !held.includes(" ") && held === words[0]),
    );
  return found.length === 1 ? found[0] : undefined;
}

/**
 * The user's three current entities whose descriptions are nearest to `vector`: an exact scan of
 * the user's nodes (found through their index on app and user where the table holds many users).
 * Entities have no vector index: 2,000 nodes of one user cost 4-6 ms on a real Postgres
 * (`npm run bench -- --write-path`), and only an entity that no name resolves is searched.
 */
export function nearestEntitiesSql(scope: { appId: string; userId: string }, vector: EntityVector): SQL {
  const literal = toVectorLiteral(vector.values);
  return sql`SELECT id, (1 - (embedding <=> ${literal}::halfvec))::float8 AS similarity FROM entities
       WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND expired_at IS NULL
         AND embedding IS NOT NULL AND embedding_model = ${vector.model}
       ORDER BY embedding <=> ${literal}::halfvec LIMIT 3`;
}

/** A node whose description's vector is within SAME_ENTITY_SIMILARITY and whose names share a word with this one's. */
async function byDescription(writer: GraphWriter, index: EntityIndex, entity: NamedEntity): Promise<KnownNode | undefined> {
  if (!entity.vector) return undefined;
  const nearest = await queryRows<{ id: string; similarity: number }>(writer.tx, nearestEntitiesSql(writer, entity.vector));
  const words = new Set(nameKeys(entity.name).flatMap((key) => key.split(" ")));
  for (const row of nearest) {
    const node = index.get(row.id);
    if (!node || Number(row.similarity) < SAME_ENTITY_SIMILARITY || !compatible(node.kind, entity.kind)) continue;
    if (
      node.keys.some((key) =>
        key.split(" ").some((word) => words.has(word) || [...words].some((mine) => mine.startsWith(word) || word.startsWith(mine))),
      )
    )
      return node;
  }
  return undefined;
}
