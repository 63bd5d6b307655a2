import type { EntityKind } from "../../../vocabulary/entity-kinds.js";
import type { ExtractedEntity, ExtractedRelation } from "../../extraction.js";
import type { Clause } from "../facts/clauses.js";
import { looksLikeName, properPhrase } from "../facts/phrases.js";
import { isSpecies, NAME, predicateOf, RELATION_WORD, SPECIES_WORD } from "./graph-words.js";

/** One asserted clause of a statement, who says it, and the turn it is in. */
export interface StatementClause {
  clause: Clause;
  /** Whose "I" and "my" these are: `user`, or a named participant. */
  speaker: string;
  seq: number;
}

export interface ClauseGraph {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

const TITLE = /^(?:Mr|Mrs|Ms|Dr|Prof|Coach|Aunt|Uncle)\.?$/;
/** Capitalised at the start of a clause, these are no one's name. */
const PRONOUNS = /^(?:I|We|He|She|They|It|You|This|That|There|Here|My|Our|His|Her|Their|Your)$/;
const whose = (owner: string) => (owner === "user" ? "the user's" : `${owner}'s`);

/** A name as written, checked: its first word (after a title) reads as a name here, not "Happy" or "Italian". */
function personName(raw: string | undefined, clause: Clause): string | null {
  if (!raw) return null;
  const words = raw.trim().split(/\s+/);
  const first = TITLE.test(words[0] as string) ? words[1] : words[0];
  if (!first || PRONOUNS.test(first) || !looksLikeName(first, clause)) return null;
  return words.join(" ");
}

/** A place or organisation as written: a capitalised phrase ("Lund University", "Boston"). */
const properName = (raw: string | undefined) => (raw ? properPhrase(raw) : null);

/** "my" → the speaker; "Maya's" → Maya; "his", "her", "their" name no one we can be sure of. */
function possessor(word: string, speaker: string, clause: Clause): string | null {
  if (/^(?:my|our)$/i.test(word)) return speaker;
  const name = word.replace(/['’]s$/, "");
  return name !== word ? personName(name, clause) : null;
}

const RELATION = `(${RELATION_WORD})`;
const POSSESSOR = `([Mm]y|[Oo]ur|${NAME}['’]s)`;

/**
 * The relations a clause states between people, animals, places and organisations — the user's
 * and anyone else's: "Maya's teacher is Mr. Ortiz", "my sister Kim", "Mr. Ortiz is Maya's
 * teacher", "Mr. Ortiz moved to Boston", "Kim works at Acme", "a cat named Bailey"; and what ends
 * one: "Tom is no longer my boss", "Kim left Acme", "Mr. Ortiz no longer lives in Chicago".
 */
export function relationsOf(statement: StatementClause): ClauseGraph {
  const graph: ClauseGraph = { entities: [], relations: [] };
  const { clause, speaker, seq } = statement;
  const text = clause.text;
  const add = (
    subject: string,
    predicate: string,
    object: string,
    kind: EntityKind | "value",
    content: string,
    operation: "ADD" | "DELETE" = "ADD",
  ) => {
    if (kind !== "value") graph.entities.push(entity(object, kind, seq));
    graph.relations.push({ subject, predicate, object, content, confidence: 0.8, operation, source_seqs: [seq] });
  };
  const kindOf = (word: string): EntityKind => (isSpecies(word) ? "pet" : "person");
  const subjectEntity = (name: string) => {
    if (name !== speaker) graph.entities.push(entity(name, "person", seq));
  };

  // "Tom is no longer my boss", "Kim is not Maya's teacher anymore".
  const ended = new RegExp(`^(${NAME}) is (?:no longer|not) ${POSSESSOR} ${RELATION}\\b`, "u").exec(text);
  if (ended && (/no longer/.test(text) || /\bany ?more\b/i.test(text))) {
    const object = personName(ended[1], clause);
    const owner = possessor(ended[2] as string, speaker, clause);
    if (object && owner) {
      subjectEntity(owner);
      add(
        owner,
        predicateOf(ended[3] as string),
        object,
        kindOf(ended[3] as string),
        `${object} is no longer ${whose(owner)} ${ended[3]}.`,
        "DELETE",
      );
      return graph;
    }
  }
  // "Maya's teacher is Mr. Ortiz", "my sister Kim", "our cat, Luna", "my boss's name is Tom".
  for (const match of text.matchAll(new RegExp(`${POSSESSOR} ${RELATION}(?:['’]s name)?,? (?:is )?(?:called |named )?(${NAME})`, "gu"))) {
    const owner = possessor(match[1] as string, speaker, clause);
    const object = personName(match[3], clause);
    if (!owner || !object || /^(?:my|our)$/i.test(object)) continue;
    subjectEntity(owner);
    const word = match[2] as string;
    add(owner, predicateOf(word), object, kindOf(word), `${object} is ${whose(owner)} ${word}.`);
    if (isSpecies(word)) add(object, "species", word.toLowerCase(), "value", `${object} is a ${word.toLowerCase()}.`);
  }
  // "Mr. Ortiz is Maya's teacher", "Sam is my best friend".
  const is = new RegExp(`^(${NAME}) is ${POSSESSOR} (?:new |old |little |older |younger |oldest |youngest )?${RELATION}\\b`, "u").exec(
    text,
  );
  if (is) {
    const object = personName(is[1], clause);
    const owner = possessor(is[2] as string, speaker, clause);
    if (object && owner) {
      subjectEntity(owner);
      add(owner, predicateOf(is[3] as string), object, kindOf(is[3] as string), `${object} is ${whose(owner)} ${is[3]}.`);
    }
  }
  // "we got another cat named Bailey", "a dog called Rex".
  for (const match of text.matchAll(
    new RegExp(
      `\\b(?:an?|another|our|my) (?:new |little |baby |rescue |second |third )?(${SPECIES_WORD}) (?:called|named) (${NAME})`,
      "giu",
    ),
  )) {
    const name = personName(match[2], clause);
    if (!name) continue;
    const species = (match[1] as string).toLowerCase();
    add(speaker, "pet", name, "pet", `${name} is ${whose(speaker)} ${species}.`);
    add(name, "species", species, "value", `${name} is a ${species}.`);
  }
  // Someone else's home and work: "Mr. Ortiz moved to Boston", "Kim works at Acme" (the user's own are read as facts).
  const someone = new RegExp(`^(${NAME}) (?:just |recently |finally |now )?`, "u").exec(text);
  const who = someone ? personName(someone[1], clause) : null;
  if (who) {
    const rest = text.slice((someone?.[0] ?? "").length);
    const moved = /^(?:moved|relocated|moved back|has moved|lives|is living|is based) (?:to|in)\s+(.+)$/.exec(rest);
    const left = /^(?:no longer lives in|moved away from|moved out of|left)\s+(.+)$/.exec(rest);
    const works =
      /^(?:works|is working|started working|has worked|got a job|started a job) (?:at|for)\s+(.+)$/.exec(rest) ??
      /^(?:joined|started at)\s+(.+)$/.exec(rest);
    const quit = /^(?:quit|was laid off from|no longer works (?:at|for)|resigned from)\s+(.+)$/.exec(rest);
    const attends = /^(?:goes to|attends|started school at|is in (?:\S+ )?(?:grade|class) at)\s+(.+)$/.exec(rest);
    const place = properName(moved?.[1]);
    if (place) {
      subjectEntity(who);
      add(who, "lives_in", place, "place", `${who} lives in ${place}.`);
    }
    const gone = properName(left?.[1]);
    if (gone && !/^left\b/.test(rest)) {
      subjectEntity(who);
      add(who, "lives_in", gone, "place", `${who} no longer lives in ${gone}.`, "DELETE");
    }
    const employer = properName(works?.[1]);
    if (employer) {
      subjectEntity(who);
      add(who, "works_at", employer, "organisation", `${who} works at ${employer}.`);
    }
    const former = properName(quit?.[1] ?? (left && /^left\b/.test(rest) ? left[1] : undefined));
    if (former) {
      subjectEntity(who);
      add(who, "works_at", former, "organisation", `${who} no longer works at ${former}.`, "DELETE");
    }
    const school = properName(attends?.[1]);
    if (school) {
      subjectEntity(who);
      add(who, "attends", school, "organisation", `${who} attends ${school}.`);
    }
  }
  return graph;
}

/** An entity named in turn `seq`. */
export function entity(name: string, kind: EntityKind, seq: number, extra: Partial<ExtractedEntity> = {}): ExtractedEntity {
  return { name, kind, aliases: [], summary: null, renamed_from: null, source_seqs: [seq], ...extra };
}
