import { z } from "zod";
import type { ContradictionPair, FactAudit } from "../../src/memory/contradictions/audit-facts.js";
import type { MemoryRecord } from "../../src/memory/write/memory-writes.js";
import { Timestamp, timestamp } from "./timestamp.js";

const AuditedFactSchema = z.object({
  id: z.uuid(),
  key: z.string(),
  content: z.string(),
  valid_at: Timestamp,
});

/** A contradiction audit of a user's current facts, as the API answers it. */
export const FactAuditSchema = z.object({
  user_id: z.string(),
  app_id: z.string(),
  dry_run: z.boolean().describe("true: the pairs are reported and nothing is changed"),
  pairs: z
    .array(
      z.object({
        kept: AuditedFactSchema.describe("The newer statement, which stays current"),
        ended: AuditedFactSchema.describe("The older statement it makes untrue (ended by a repair)"),
        reason: z.string(),
      }),
    )
    .describe("Pairs of current facts that cannot both be true"),
  repaired: z.number().int().describe("Facts the repair ended (0 on a dry run)"),
});

export type FactAuditJson = z.infer<typeof FactAuditSchema>;

const auditedFact = (row: MemoryRecord) => ({ id: row.id, key: row.key ?? "", content: row.content, valid_at: timestamp(row.validAt) });

/** The audit's answer for the API. */
export function factAuditJson(scope: { appId: string; userId: string }, dryRun: boolean, audit: FactAudit): FactAuditJson {
  return {
    user_id: scope.userId,
    app_id: scope.appId,
    dry_run: dryRun,
    pairs: audit.pairs.map(({ kept, ended, reason }: ContradictionPair) => ({
      kept: auditedFact(kept),
      ended: auditedFact(ended),
      reason,
    })),
    repaired: audit.repaired,
  };
}
