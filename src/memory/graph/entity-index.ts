import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { entities } from "../../db/schema/index.js";
import type { EntityKind } from "../../vocabulary/entity-kinds.js";
import { nameKeys } from "../../vocabulary/entity-names.js";

/** A current entity as the writer keeps it while it applies a chunk. */
export interface KnownNode {
  id: string;
  name: string;
  kind: EntityKind;
  self: boolean;
  aliases: string[];
  keys: string[];
  validAt: Date;
  hasEmbedding: boolean;
}

/**
 * The user's current entities by every key of their names, read once per chunk and kept in step
 * with what the writer changes, so each name in the chunk is looked up without a statement.
 */
export class EntityIndex {
  private readonly byKey = new Map<string, Set<KnownNode>>();
  private readonly byId = new Map<string, KnownNode>();

  static async load(tx: Queryable, scope: { appId: string; userId: string }): Promise<EntityIndex> {
    const rows = await tx
      .select({
        id: entities.id,
        name: entities.name,
        kind: entities.kind,
        self: entities.self,
        aliases: entities.aliases,
        keys: entities.keys,
        validAt: entities.validAt,
        embeddingModel: entities.embeddingModel,
      })
      .from(entities)
      .where(and(eq(entities.appId, scope.appId), eq(entities.userId, scope.userId), isNull(entities.expiredAt)));
    const index = new EntityIndex();
    for (const row of rows) index.put({ ...row, hasEmbedding: row.embeddingModel !== null });
    return index;
  }

  /** Adds or replaces a node (after a rename or a new name, its keys are its names' again). */
  put(node: KnownNode): void {
    this.remove(node.id);
    this.byId.set(node.id, node);
    for (const key of node.keys) {
      const nodes = this.byKey.get(key) ?? new Set<KnownNode>();
      nodes.add(node);
      this.byKey.set(key, nodes);
    }
  }

  remove(id: string): void {
    const node = this.byId.get(id);
    if (!node) return;
    this.byId.delete(id);
    for (const key of node.keys) this.byKey.get(key)?.delete(node);
  }

  get(id: string): KnownNode | undefined {
    return this.byId.get(id);
  }

  /** The nodes any of these names is a name of. */
  named(names: readonly string[]): KnownNode[] {
    const found = new Set<KnownNode>();
    for (const name of names) for (const key of nameKeys(name)) for (const node of this.byKey.get(key) ?? []) found.add(node);
    return [...found];
  }

  /** The nodes a folded key (a word or a run of words of a text) names. */
  withKey(key: string): ReadonlySet<KnownNode> {
    return this.byKey.get(key) ?? NONE;
  }

  get self(): KnownNode | undefined {
    return [...this.byId.values()].find((node) => node.self);
  }

  all(): KnownNode[] {
    return [...this.byId.values()];
  }
}

const NONE: ReadonlySet<KnownNode> = new Set();
