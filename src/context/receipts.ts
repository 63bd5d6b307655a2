import { z } from "zod";
import type { RecalledMemory } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement } from "../memory/recall/later-statements.js";
import { RecallSignalsSchema, rankingSummary, recallSignals } from "../memory/recall/signals.js";

export const LEFT_OUT_REASONS = ["budget", "redundant"] as const;

const ExplainedMemorySchema = z.object({
  memory_id: z.string(),
  type: z.string(),
  subtype: z.string().nullable(),
  content: z.string(),
  section: z.enum(["facts", "memories"]),
  /** Place after fusion, null for a turn brought in beside a top hit. */
  recall_rank: z.number().int().nullable(),
  signals: RecallSignalsSchema,
  reason: z.string(),
  /** What the user said later on its subject, shown beside it in the window. */
  later_statement: z
    .object({ memory_id: z.string(), said_at: z.string(), similarity: z.number(), names: z.array(z.string()).optional() })
    .optional(),
});

/** `explain: true` on POST /v1/context: why each memory is in the window, and why the others are not. */
export const ContextExplanationSchema = z.object({
  /** Memories recall considered (its candidates for this budget, plus the turns brought beside top hits). */
  considered: z.number().int(),
  chosen: z.array(ExplainedMemorySchema),
  left_out: z.array(ExplainedMemorySchema.extend({ left_out_because: z.enum(LEFT_OUT_REASONS) })),
});
export type ContextExplanation = z.infer<typeof ContextExplanationSchema>;

export interface RecallTrail {
  /** Recall's order (fused score). */
  ranked: RecalledMemory[];
  /** After the turns that follow top hits were placed beside them. */
  expanded: RecalledMemory[];
  /** After redundant episodes were dropped and superseded ones demoted: what packing was offered. */
  offered: RecalledMemory[];
  /** Ids of the memories the packed window holds. */
  packed: ReadonlySet<string>;
  /** Ids of the memories left out because another section (the history) already holds what they say. */
  repeated: ReadonlySet<string>;
  /** The turns brought in after a fact they were derived from, by turn id: the fact's id. */
  derivedFrom: ReadonlyMap<string, string>;
  /** Each statement's later statement shown beside it, by the statement's id. */
  laterOf: ReadonlyMap<string, LaterStatement>;
  /** Ids of the statements the budget left out with their later statement beside them, and not offered again without it. */
  leftWithNote: ReadonlySet<string>;
  /** Ids of the asker's own statements read first for a question about how they stand now. */
  ownStatements: ReadonlySet<string>;
  now: Date;
}

/** The receipts of one context window, from the steps its memories went through. */
export function explainContext(trail: RecallTrail): ContextExplanation {
  const rankOf = new Map(trail.ranked.map((memory, index) => [memory.id, index + 1]));
  const offered = new Set(trail.offered.map((memory) => memory.id));
  const shownBeside = new Map([...trail.laterOf].map(([statement, later]) => [later.memoryId, statement]));
  const explained = (memory: RecalledMemory, reason: string) => {
    const later = trail.laterOf.get(memory.id);
    return {
      memory_id: memory.id,
      type: memory.type,
      subtype: memory.subtype,
      content: memory.content,
      section: memory.type === "semantic" ? ("facts" as const) : ("memories" as const),
      recall_rank: rankOf.get(memory.id) ?? null,
      signals: recallSignals(memory, trail.now),
      reason,
      ...(later
        ? {
            later_statement: {
              memory_id: later.memoryId,
              said_at: later.at.toISOString(),
              similarity: Math.round(later.similarity * 1000) / 1000,
              ...(later.names.length > 0 ? { names: later.names } : {}),
            },
          }
        : {}),
    };
  };
  const why = (memory: RecalledMemory) => {
    const rank = rankOf.get(memory.id);
    const fact = trail.derivedFrom.get(memory.id);
    const own = trail.ownStatements.has(memory.id)
      ? "one of the user's own statements nearest to a question about how they stand now, read first"
      : undefined;
    if (rank === undefined && own) return own;
    if (rank === undefined && fact) return `a turn the recalled fact ${fact} was derived from`;
    if (rank === undefined) return "the turn after a top-ranked turn: an answer usually follows its question";
    const ranking = `${own ? `${own}; ` : ""}ranked ${rank} of ${trail.ranked.length} by fused score: ${rankingSummary(memory)}`;
    return memory.superseded ? `${ranking}; what it says was replaced, so it is marked and placed behind current statements` : ranking;
  };
  const chosen = trail.offered.filter((memory) => trail.packed.has(memory.id)).map((memory) => explained(memory, why(memory)));
  const leftOut = [
    ...trail.offered
      .filter((memory) => !trail.packed.has(memory.id) && trail.repeated.has(memory.id))
      .map((memory) => ({
        ...explained(memory, `${why(memory)}; the window's history already holds the events it came from, or its words`),
        left_out_because: "redundant" as const,
      })),
    ...trail.offered
      .filter((memory) => !trail.packed.has(memory.id) && !trail.repeated.has(memory.id))
      .map((memory) => ({
        ...explained(
          memory,
          trail.leftWithNote.has(memory.id)
            ? `${why(memory)}; left out by the budget with what the user said later beside it, and not offered without it`
            : `${why(memory)}; the ${memory.type === "semantic" ? "facts" : "memories"} share of the budget was spent on better-ranked items`,
        ),
        left_out_because: "budget" as const,
      })),
    ...trail.expanded
      .filter((memory) => !offered.has(memory.id))
      .map((memory) => {
        const statement = shownBeside.get(memory.id);
        if (statement !== undefined && !trail.packed.has(statement) && !trail.repeated.has(statement))
          return {
            ...explained(memory, `${why(memory)}; to be shown beside ${statement}, which the budget left out`),
            left_out_because: "budget" as const,
          };
        const reason =
          statement === undefined
            ? "every event it came from is already in a better-ranked episode"
            : trail.repeated.has(statement)
              ? `to be shown beside ${statement}, whose events the window's history already holds`
              : `shown beside ${statement} as what the user said later on its subject`;
        return { ...explained(memory, `${why(memory)}; ${reason}`), left_out_because: "redundant" as const };
      }),
  ];
  return { considered: trail.expanded.length, chosen, left_out: leftOut };
}
