import type { EntityKind } from "../../../vocabulary/entity-kinds.js";
import { ANY_OBJECT, type ExtractedEntity, type ExtractedFact, type ExtractedRelation, USER_SUBJECT } from "../../extraction.js";

/** What a fact says as an edge of the graph: the subject's relation to a named thing or a value. */
interface FactEdge {
  predicate: string;
  object: string;
  /** The object as an entity of this kind, or a value. */
  kind: EntityKind | "value";
  summary?: string;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);
const field = (value: unknown, name: string): string | null =>
  value && typeof value === "object" ? text((value as Record<string, unknown>)[name]) : null;
/** "a design studio", "the hospital" → "design studio", "hospital": the organisation, not the phrase. */
const bare = (phrase: string) => phrase.replace(/^(?:a|an|the)\s+/i, "");

/**
 * The edges of the offline extractor's facts (the patterns it already reads): the subject's name,
 * where they live and come from, work and study, who their partner, family and pets are. A retraction
 * of an exclusive attribute ("User no longer lives in Berlin.") closes whatever holds it.
 */
function edgesOf(fact: ExtractedFact): FactEdge[] {
  const [namespace, attribute] = fact.key.split(":");
  const value = fact.value;
  if (namespace === "profile") {
    switch (attribute) {
      case "location":
        return edge("lives_in", text(value), "place");
      case "origin":
        return edge("from", text(value), "place");
      case "employer":
        return edge("works_at", text(value) && bare(text(value) as string), "organisation");
      case "occupation":
        return edge("occupation", text(value), "value");
      case "alma_mater":
        return edge("graduated_from", text(value), "organisation");
      case "studies":
        return [...edge("studies_at", field(value, "school"), "organisation"), ...edge("studies", field(value, "subject"), "value")];
      case "partner":
        return edge("partner", field(value, "name"), "person");
      case "name":
        // A name of the subject's own node, not another person: the writer renames the node.
        return edge("name", text(value), "value");
      default:
        return [];
    }
  }
  if (namespace === "family") {
    const name = field(value, "name");
    const relation = field(value, "relation");
    return relation && !fact.key.endsWith(":birthday") ? edge(relation.replace(/\s+/g, "_"), name, "person") : [];
  }
  if (namespace === "pet") {
    const animal = field(value, "animal");
    return edge("pet", field(value, "name"), "pet", animal ? `a ${animal}` : undefined);
  }
  return [];
}

function edge(predicate: string, object: string | null, kind: FactEdge["kind"], summary?: string): FactEdge[] {
  return object ? [{ predicate, object, kind, ...(summary ? { summary } : {}) }] : [];
}

/** The exclusive attributes a retraction closes, whatever holds them. */
const RETRACTED_PREDICATE: Record<string, string> = {
  "profile:location": "lives_in",
  "profile:employer": "works_at",
  "profile:partner": "partner",
  "profile:occupation": "occupation",
  "profile:studies": "studies_at",
};

/**
 * The entities and relations of `subject`'s facts: "User's daughter is named Maya." is the person
 * Maya and `user daughter Maya`; "User lives in Lisbon." the place Lisbon and `user lives_in Lisbon`.
 */
export function factsAsRelations(subject: string, facts: ExtractedFact[]): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } {
  const entities: ExtractedEntity[] = [];
  const relations: ExtractedRelation[] = [];
  for (const fact of facts) {
    if (fact.operation === "DELETE") {
      const predicate = RETRACTED_PREDICATE[fact.key];
      // "User no longer lives in Berlin.", "User and Sam separated.": what ended, when the sentence names it.
      const ended = /(?:\bin|\bat|^User and) (.+?)(?:\.| separated\.)$/.exec(fact.content)?.[1];
      if (predicate)
        relations.push({
          subject,
          predicate,
          object: ended && !/^their\b/.test(ended) ? ended : ANY_OBJECT,
          content: subject === USER_SUBJECT ? fact.content : fact.content.replace(/^User\b/, subject),
          confidence: fact.confidence,
          operation: "DELETE",
          source_seqs: fact.source_seqs,
        });
      continue;
    }
    for (const found of edgesOf(fact)) {
      if (found.kind !== "value")
        entities.push({
          name: found.object,
          kind: found.kind,
          aliases: [],
          summary: found.summary ?? null,
          renamed_from: null,
          source_seqs: fact.source_seqs,
        });
      relations.push({
        subject,
        predicate: found.predicate,
        object: found.object,
        content: subject === USER_SUBJECT ? fact.content : fact.content.replace(/^User\b/, subject),
        confidence: fact.confidence,
        operation: "ADD",
        source_seqs: fact.source_seqs,
      });
    }
  }
  return { entities, relations };
}
