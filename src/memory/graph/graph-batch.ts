import type { ExtractedEntity, ExtractedRelation } from "../../providers/extraction.js";
import type { EntityKind } from "../../vocabulary/entity-kinds.js";
import type { SourceRef } from "../provenance.js";

/** A chunk's event as the graph writer reads it: where it is, when, who said it and what. */
export interface GraphEvent {
  id: string;
  sessionId: string;
  seq: number;
  role: string;
  content: string;
  occurredAt: Date;
  /** The participant's name when the event gives one (`data.speaker`). */
  speaker?: string | null;
}

interface Grounded {
  sources: SourceRef[];
  /** When it was said (world time): the newest of its source events. */
  validAt: Date;
}

export type EntityCandidate = Omit<ExtractedEntity, "source_seqs"> & Grounded & { kind: EntityKind };
export type RelationCandidate = Omit<ExtractedRelation, "source_seqs"> & Grounded;

/** What one chunk brings to the graph: its events (for speakers and mentions), the entities and relations extracted. */
export interface GraphBatch {
  events: GraphEvent[];
  entities: EntityCandidate[];
  relations: RelationCandidate[];
}

/**
 * Ties extracted entities and relations to the events they cite (provenance) and to when those
 * were said, relations in the order they were said, so a later statement supersedes an earlier
 * one whatever the order of the extraction's list. Items citing no known event are left out (the
 * extraction was validated against the chunk's seqs, so there are none but a tombstone's).
 *
 * @example
 * const batch = groundGraph({ entities, relations }, events);
 */
export function groundGraph(extraction: { entities: ExtractedEntity[]; relations: ExtractedRelation[] }, events: GraphEvent[]): GraphBatch {
  const bySeq = new Map(events.map((event) => [event.seq, event]));
  const ground = (seqs: number[]): Grounded | null => {
    const cited = seqs.map((seq) => bySeq.get(seq)).filter((event): event is GraphEvent => event !== undefined && event.content !== "");
    if (cited.length === 0) return null;
    const newest = cited.reduce((latest, event) => (event.occurredAt > latest.occurredAt ? event : latest));
    return {
      sources: cited.map((event) => ({ session_id: event.sessionId, event_id: event.id, seq: event.seq })),
      validAt: newest.occurredAt,
    };
  };
  const entities = extraction.entities.flatMap(({ source_seqs, ...entity }) => {
    const grounded = ground(source_seqs);
    return grounded ? [{ ...entity, ...grounded }] : [];
  });
  const relations = extraction.relations
    .flatMap(({ source_seqs, ...relation }) => {
      const grounded = ground(source_seqs);
      return grounded ? [{ ...relation, ...grounded }] : [];
    })
    .sort((a, b) => a.validAt.getTime() - b.validAt.getTime() || (a.sources[0]?.seq ?? 0) - (b.sources[0]?.seq ?? 0));
  return { events, entities, relations };
}
