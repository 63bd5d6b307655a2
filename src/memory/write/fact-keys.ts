import { and, eq } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";
import { current, ownedBy } from "../visibility.js";
import type { Scope } from "./operations.js";

export interface ResolvedKey {
  key: string;
  /** Why the key differs from the one extracted; absent when it does not. */
  note?: string;
}

/**
 * The key an extracted fact is written under: the key it names as replaced, when the user's memory
 * holds it; else its own key when that exists; else a current key of the same attribute.
 */
export async function resolveFactKey(tx: Queryable, scope: Scope, key: string, replacesKey: string | undefined): Promise<ResolvedKey> {
  const held = await tx
    .selectDistinct({ key: memories.key })
    .from(memories)
    .where(and(ownedBy(memories, scope), eq(memories.type, "semantic"), current(memories)));
  const keys = new Set(held.flatMap((row) => (row.key ? [row.key] : [])));
  if (replacesKey && replacesKey !== key && keys.has(replacesKey)) {
    return { key: replacesKey, note: `extracted as ${key}, which names ${replacesKey} as the key it replaces` };
  }
  if (keys.has(key)) return { key };
  const attribute = canonicalAttribute(key);
  const same = [...keys].find((existing) => canonicalAttribute(existing) === attribute);
  return same ? { key: same, note: `extracted as ${key}, the same attribute as ${same}` } : { key };
}
