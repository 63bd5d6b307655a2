import { nameKey } from "../../../vocabulary/entity-names.js";
import { type ExtractedEntity, type ExtractedFact, type ExtractedRelation, USER_SUBJECT } from "../../extraction.js";
import type { ExtractionRequest } from "../../types.js";
import { readClauses } from "../facts/clauses.js";
import { factsAsRelations } from "./facts-as-relations.js";
import { namedIn, namesOf } from "./name-rules.js";
import { relationsOf } from "./relation-rules.js";

export interface GraphExtraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/** The offline fact extractor, for the statements of a participant other than the user. */
export type FactReader = (request: ExtractionRequest) => { facts: ExtractedFact[] };

/**
 * The entity graph of a chunk without an LLM (issue 40), read from statements: the user's turns,
 * and the turns of a participant the events name (`speaker`), whose "I" and "my" are theirs. An
 * assistant's unnamed turns state nothing about anyone. From each statement: the relations of its
 * facts (`userFacts` for the user; the same rules read a named participant's), the relations it
 * states between others ("Maya's teacher is Mr. Ortiz", "Mr. Ortiz moved to Boston"), renames and
 * second names, and the people, places and organisations it names. Which entity a later turn
 * mentions by name is the writer's to find (it knows every entity of the user).
 *
 * @example
 * extractGraphByRules({ turns: [{ role: "user", content: "My daughter Maya loves her teacher, Mr. Ortiz.", seq: 1 }] }, facts, extractByRules);
 */
export function extractGraphByRules(request: ExtractionRequest, userFacts: ExtractedFact[], readFacts: FactReader): GraphExtraction {
  const graph: GraphExtraction = { entities: [], relations: [] };
  /** Names the tagger alone found: kept only when no rule named them, with the kind the rule gave. */
  const guessed: ExtractedEntity[] = [];
  const add = (found: GraphExtraction) => {
    graph.entities.push(...found.entities);
    graph.relations.push(...found.relations);
  };
  add(factsAsRelations(USER_SUBJECT, userFacts));
  // Names that are the speakers' own (a participant's, or the user's "my name is Dana") name no one else.
  const ownNames = userFacts
    .filter((fact) => fact.key === "profile:name" && typeof fact.value === "string")
    .map((fact) => fact.value as string);
  const speakers = new Set([
    ...request.turns.flatMap((turn) => (turn.speaker ? [turn.speaker.toLowerCase()] : [])),
    ...ownNames.map((name) => name.toLowerCase()),
  ]);
  const participants = new Map<string, ExtractionRequest["turns"]>();
  for (const turn of request.turns) {
    const speaker = turn.role === "user" ? USER_SUBJECT : turn.speaker;
    if (!speaker) continue;
    if (speaker !== USER_SUBJECT) participants.set(speaker, [...(participants.get(speaker) ?? []), { ...turn, role: "user" }]);
    let lastNamed: string | null = null;
    for (const clause of readClauses(turn.content)) {
      if (clause.unasserted) continue;
      const statement = relationsOf({ clause, speaker, seq: turn.seq });
      const named = namedIn(clause, turn.seq, speakers);
      // "My friend Alexander, everyone calls him Sasha": him is the person named last before.
      lastNamed = [...statement.entities, ...named].filter((found) => found.kind === "person").at(0)?.name ?? lastNamed;
      const names = namesOf(clause, turn.seq, lastNamed);
      add({ entities: [...statement.entities, ...names], relations: statement.relations });
      guessed.push(...named);
    }
  }
  for (const [speaker, turns] of participants) add(factsAsRelations(speaker, readFacts({ turns }).facts));
  const ruled = new Set(graph.entities.flatMap((found) => [found.name, ...found.aliases].map(nameKey)));
  const entities = [...graph.entities, ...guessed.filter((found) => !ruled.has(nameKey(found.name)))];
  return { entities: mergeByName(entities), relations: distinctRelations(graph.relations) };
}

/** One entity per name and kind: its turns, second names and summary together. */
function mergeByName(entities: ExtractedEntity[]): ExtractedEntity[] {
  const byName = new Map<string, ExtractedEntity>();
  for (const found of entities) {
    const key = `${found.kind}|${nameKey(found.name)}`;
    const held = byName.get(key);
    if (!held) {
      byName.set(key, { ...found, aliases: [...found.aliases], source_seqs: [...found.source_seqs] });
      continue;
    }
    for (const alias of found.aliases) if (!held.aliases.includes(alias)) held.aliases.push(alias);
    for (const seq of found.source_seqs) if (!held.source_seqs.includes(seq)) held.source_seqs.push(seq);
    held.summary ??= found.summary ?? null;
    held.renamed_from ??= found.renamed_from ?? null;
  }
  return [...byName.values()];
}

/** A relation stated twice in one chunk (by a fact and by a clause rule, say) is one, citing both turns. */
function distinctRelations(relations: ExtractedRelation[]): ExtractedRelation[] {
  const byStatement = new Map<string, ExtractedRelation>();
  for (const relation of relations) {
    const key = [nameKey(relation.subject), relation.predicate, nameKey(relation.object), relation.operation].join("|");
    const held = byStatement.get(key);
    if (!held) byStatement.set(key, { ...relation, source_seqs: [...relation.source_seqs] });
    else for (const seq of relation.source_seqs) if (!held.source_seqs.includes(seq)) held.source_seqs.push(seq);
  }
  return [...byStatement.values()];
}
