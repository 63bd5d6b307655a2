import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampTz } from "./columns.js";
import { memories } from "./memories.js";

export const EVIDENCE_QUALITIES = ["A", "B", "C", "D"] as const;
export type EvidenceQuality = (typeof EVIDENCE_QUALITIES)[number];

/**
 * Evidence for or against a trait, one row per observation, so counts can
 * always be recomputed and explained. Quality: A explicit and emphatic, B explicit, C inferred
 * from behaviour, D weak or second-hand.
 */
export const traitEvidence = pgTable(
  "trait_evidence",
  {
    id: uuid("id").primaryKey(),
    traitId: uuid("trait_id")
      .notNull()
      .references(() => memories.id, { onDelete: "cascade" }),
    direction: text("direction").$type<"supporting" | "contradicting">().notNull(),
    quality: text("quality").$type<EvidenceQuality>().notNull(),
    content: text("content").notNull(),
    eventId: uuid("event_id"),
    observedAt: timestampTz("observed_at").notNull(),
    createdAt: timestampTz("created_at").notNull().defaultNow(),
  },
  (table) => [index("trait_evidence_trait_idx").on(table.traitId, table.observedAt)],
);
