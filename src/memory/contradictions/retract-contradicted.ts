import { and, eq, gt, isNull, lte, ne, or } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import type { Extractor, FactOperation } from "../../providers/extraction.js";
import type { FactLike } from "../../providers/facts/fact-subject.js";
import type { SourceRef } from "../provenance.js";
import { snapshot, writeHistory } from "../write/memory-writes.js";
import type { AppliedOperation, Scope } from "../write/operations.js";
import { dissolveTrait } from "../write/traits.js";
import { contradictedBy } from "./contradiction-rules.js";

/** A statement about to be written, as consolidation holds it. */
export interface IncomingFact extends FactLike {
  operation: FactOperation;
  validAt: Date;
  sources: SourceRef[];
  sessionId: string | null;
}

/**
 * Before a fact is written: the user's current facts and traits it contradicts
 * (contradiction-rules.ts) are ended — a fact is retracted at the statement's time (`invalid_at`,
 * history DELETE naming the statement), a trait dissolved with the statement as contradicting
 * evidence. Only what was true when the statement was made is touched: a later statement is never
 * ended by an earlier one, whatever the processing order. Runs inside the consolidation's
 * transaction, under its user lock.
 */
export async function retractContradicted(
  tx: Queryable,
  scope: Scope,
  fact: IncomingFact,
  options: { actor: string; now: Date; extractor?: Extractor },
): Promise<AppliedOperation[]> {
  const owned = and(eq(memories.appId, scope.appId), eq(memories.userId, scope.userId), isNull(memories.expiredAt));
  const facts = await tx
    .select()
    .from(memories)
    .where(
      and(
        owned,
        eq(memories.type, "semantic"),
        lte(memories.validAt, fact.validAt),
        or(isNull(memories.invalidAt), gt(memories.invalidAt, fact.validAt)),
      ),
    );
  const traits = await tx
    .select()
    .from(memories)
    .where(and(owned, eq(memories.type, "trait"), ne(memories.traitStage, "dissolved")));
  const held = [...facts, ...traits].flatMap((row) => (row.key ? [{ ...row, key: row.key }] : []));
  const operations: AppliedOperation[] = [];
  for (const { held: row, reason } of contradictedBy(fact, held)) {
    const why = `contradicted by "${fact.content}" (${reason})`;
    if (row.type === "trait") {
      if (row.lastReinforcedAt !== null && row.lastReinforcedAt > fact.validAt) continue;
      await dissolveTrait(tx, scope, row, {
        actor: options.actor,
        now: options.now,
        reason: why,
        evidence: {
          subtype: (row.subtype ?? "preference") as "behavior" | "preference" | "core",
          key: row.key,
          content: fact.content,
          direction: "contradicting",
          quality: "A",
          sources: fact.sources,
          validAt: fact.validAt,
          sessionId: fact.sessionId,
        },
      });
      operations.push({ op: "UPDATE", kind: "trait", memory_id: row.id, key: row.key, reason: `dissolved: ${why}` });
      continue;
    }
    const retracted = await tx
      .update(memories)
      .set({ invalidAt: fact.validAt, updatedAt: options.now })
      .where(and(eq(memories.id, row.id), isNull(memories.expiredAt), or(isNull(memories.invalidAt), gt(memories.invalidAt, fact.validAt))))
      .returning({ id: memories.id });
    if (retracted.length === 0) continue;
    await writeHistory(tx, {
      memoryId: row.id,
      appId: scope.appId,
      userId: scope.userId,
      actor: options.actor,
      at: options.now,
      operation: "DELETE",
      before: snapshot(row),
      after: { invalidAt: fact.validAt, contradictedBy: fact.sources, ...(options.extractor ? { extractor: options.extractor } : {}) },
      reason: why,
    });
    operations.push({ op: "DELETE", kind: "fact", memory_id: row.id, key: row.key, reason: why });
  }
  return operations;
}
