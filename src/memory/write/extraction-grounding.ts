import type { ExtractedFact, ExtractedInsight, Extraction, Extractor, TraitEvidenceCandidate } from "../../providers/extraction.js";
import { IMPORTANCE_BY_LEVEL } from "../../providers/extraction.js";
import type { SourceRef } from "../provenance.js";
import { ruleImportance } from "./importance.js";

/** A log event as consolidation needs it: where it is and when it was said. */
export interface SourceEvent {
  id: string;
  sessionId: string;
  seq: number;
  content: string;
  occurredAt: Date;
}

interface Grounded {
  sources: SourceRef[];
  /** When the statement was made (world time): the newest of its source events. */
  validAt: Date;
  sessionId: string | null;
}

const FACT_IMPORTANCE_FLOOR = 0.5;

export type FactCandidate = Omit<ExtractedFact, "source_seqs"> & Grounded & { importance: number };
export type InsightCandidate = Omit<ExtractedInsight, "source_seqs" | "importance"> & Grounded & { importance: number };
export type TraitCandidate = Omit<TraitEvidenceCandidate, "source_seqs"> & Grounded;

export interface CandidateBatch {
  /** Which extractor read the batch (absent for what the API writes): every memory it writes records it. */
  extractor?: Extractor;
  facts: FactCandidate[];
  insights: InsightCandidate[];
  traits: TraitCandidate[];
}

/**
 * Ties every extracted item to the log events it cites and to the time they were said, and
 * orders the batch by that time, so consolidation applies statements in logical order.
 */
export function groundExtraction(extraction: Extraction, events: SourceEvent[]): CandidateBatch {
  const bySeq = new Map(events.map((event) => [event.seq, event]));
  const ground = (seqs: number[]): Grounded & { texts: string[] } => {
    const cited = seqs.map((seq) => bySeq.get(seq)).filter((event): event is SourceEvent => event !== undefined);
    if (cited.length === 0) throw new Error(`extraction cites no known event (seqs ${seqs.join(", ")})`);
    const newest = cited.reduce((latest, event) => (event.occurredAt > latest.occurredAt ? event : latest));
    return {
      sources: cited.map((event) => ({ session_id: event.sessionId, event_id: event.id, seq: event.seq })),
      validAt: newest.occurredAt,
      sessionId: newest.sessionId,
      texts: cited.map((event) => event.content),
    };
  };
  const byTime = <T extends { validAt: Date; sources: SourceRef[] }>(items: T[]) =>
    items.sort((a, b) => a.validAt.getTime() - b.validAt.getTime() || (a.sources[0]?.seq ?? 0) - (b.sources[0]?.seq ?? 0));
  return {
    extractor: extraction.extractor,
    facts: byTime(
      extraction.facts.map(({ source_seqs, ...fact }) => {
        const { texts, ...grounded } = ground(source_seqs);
        // A fact the user stated about themselves is worth keeping; rules raise it further.
        return { ...fact, ...grounded, importance: Math.max(FACT_IMPORTANCE_FLOOR, ruleImportance([fact.content, ...texts])) };
      }),
    ),
    insights: byTime(
      extraction.insights.map(({ source_seqs, importance, ...insight }) => {
        const { texts: _texts, ...grounded } = ground(source_seqs);
        return { ...insight, ...grounded, importance: IMPORTANCE_BY_LEVEL[importance] };
      }),
    ),
    traits: byTime(
      extraction.traits.map(({ source_seqs, ...trait }) => {
        const { texts: _texts, ...grounded } = ground(source_seqs);
        return { ...trait, ...grounded };
      }),
    ),
  };
}
