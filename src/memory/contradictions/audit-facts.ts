import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Database, Queryable } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";
import { lockUser } from "../user-lock.js";
import { type MemoryRecord, snapshot, writeHistory } from "../write/memory-writes.js";
import type { Scope } from "../write/operations.js";
import { contradictedBy } from "./contradiction-rules.js";

/** Two current facts that cannot both be true: the newer statement ends the older one. */
export interface ContradictionPair {
  kept: MemoryRecord;
  ended: MemoryRecord;
  reason: string;
}

/** What an audit found, and how many of the facts it would end it did end (0 on a dry run). */
export interface FactAudit {
  pairs: ContradictionPair[];
  repaired: number;
}

/**
 * The pairs of a user's current facts that cannot both be true, by the write path's rules: one
 * value per attribute (`canonicalAttribute`), and what `contradictedBy` says a statement ends
 * (exclusive attributes, a thing ended or now disliked, a person gone). The newer statement (by
 * `valid_at`, then creation) is kept and the older ended, as the write path would have done had it
 * seen them in that order — facts written before a rule existed, imported, or restored. Each
 * ended fact is named once, with the first newer fact that ends it.
 *
 * @example
 * findContradictions([single, partner]) // → [{ kept: single, ended: partner, reason: "single now" }] when "single" is newer
 */
export function findContradictions(current: readonly MemoryRecord[]): ContradictionPair[] {
  const facts = current
    .filter((row): row is MemoryRecord & { key: string } => row.type === "semantic" && row.key !== null && row.invalidAt === null)
    .sort((a, b) => a.validAt.getTime() - b.validAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  const pairs: ContradictionPair[] = [];
  const ended = new Set<string>();
  for (const [index, newer] of facts.entries()) {
    const older = facts.slice(0, index).filter((row) => !ended.has(row.id));
    const attribute = canonicalAttribute(newer.key);
    for (const row of older.filter((held) => canonicalAttribute(held.key) === attribute)) {
      pairs.push({ kept: newer, ended: row, reason: `same attribute (${attribute}): one value at a time` });
      ended.add(row.id);
    }
    for (const { held, reason } of contradictedBy(newer, older)) {
      if (ended.has(held.id)) continue;
      pairs.push({ kept: newer, ended: held, reason });
      ended.add(held.id);
    }
  }
  return pairs;
}

/**
 * The periodic contradiction audit of one user's current facts: reports the pairs that cannot both
 * be true, and with `repair` ends the older fact of each at the newer one's `valid_at`, with
 * history (`DELETE`, "audit: contradicted by …"). The repair runs under the user lock (consolidation
 * cannot write between the read and the change) and locks the facts in id order, as every writer
 * of several memories does.
 *
 * @example
 * const { pairs } = await auditFacts(db, { appId: "default", userId: "u1" }, { repair: false, actor: "api", now: new Date() });
 */
export async function auditFacts(db: Database, scope: Scope, options: { repair: boolean; actor: string; now: Date }): Promise<FactAudit> {
  if (!options.repair) return { pairs: findContradictions(await currentFacts(db, scope, false)), repaired: 0 };
  return db.transaction(async (tx) => {
    await lockUser(tx, scope.appId, scope.userId);
    const pairs = findContradictions(await currentFacts(tx, scope, true));
    let repaired = 0;
    for (const { kept, ended, reason } of pairs) {
      const invalidAt = kept.validAt > ended.validAt ? kept.validAt : options.now;
      const changed = await tx
        .update(memories)
        .set({ invalidAt, updatedAt: options.now })
        .where(and(eq(memories.id, ended.id), isNull(memories.invalidAt), isNull(memories.expiredAt)))
        .returning({ id: memories.id });
      if (changed.length === 0) continue;
      repaired += 1;
      await writeHistory(tx, {
        memoryId: ended.id,
        appId: scope.appId,
        userId: scope.userId,
        actor: options.actor,
        at: options.now,
        operation: "DELETE",
        before: snapshot(ended),
        after: { invalidAt, contradictedBy: kept.id },
        reason: `audit: contradicted by "${kept.content}" (${reason})`,
      });
    }
    return { pairs, repaired };
  });
}

/** The user's current facts; `lock` takes their row locks in id order. */
async function currentFacts(db: Queryable, scope: Scope, lock: boolean): Promise<MemoryRecord[]> {
  const query = db
    .select()
    .from(memories)
    .where(
      and(
        eq(memories.appId, scope.appId),
        eq(memories.userId, scope.userId),
        inArray(memories.type, ["semantic"]),
        isNull(memories.invalidAt),
        isNull(memories.expiredAt),
      ),
    )
    .orderBy(memories.id);
  return lock ? query.for("update") : query;
}
