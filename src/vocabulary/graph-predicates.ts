import type { EntityKind } from "./entity-kinds.js";

/**
 * What the graph knows of a predicate: whether a subject holds one object of it at a time
 * (`exclusive`: a new object closes the old one, as a new value of a fact's key does), and what
 * its object is when the extractor names it but does not list it as an entity (`object`: an entity
 * of that kind, or a literal value).
 */
export interface PredicateSpec {
  exclusive: boolean;
  object: EntityKind | "value";
}

const person = (exclusive = false): PredicateSpec => ({ exclusive, object: "person" });

/**
 * The predicates extractors are asked to use where one fits (another is kept as written, not
 * exclusive, its object an entity when one is named). Family relations keep their own word
 * (`daughter`, not `child`): the word is what a query says.
 */
export const PREDICATES: Readonly<Record<string, PredicateSpec>> = {
  partner: person(true),
  mother: person(true),
  father: person(true),
  son: person(),
  daughter: person(),
  child: person(),
  brother: person(),
  sister: person(),
  sibling: person(),
  grandmother: person(),
  grandfather: person(),
  grandson: person(),
  granddaughter: person(),
  cousin: person(),
  niece: person(),
  nephew: person(),
  friend: person(),
  best_friend: person(),
  colleague: person(),
  boss: person(true),
  teacher: person(true),
  doctor: person(true),
  pet: { exclusive: false, object: "pet" },
  lives_in: { exclusive: true, object: "place" },
  located_in: { exclusive: true, object: "place" },
  from: { exclusive: true, object: "place" },
  works_at: { exclusive: true, object: "organisation" },
  studies_at: { exclusive: true, object: "organisation" },
  attends: { exclusive: true, object: "organisation" },
  graduated_from: { exclusive: false, object: "organisation" },
  member_of: { exclusive: false, object: "organisation" },
  occupation: { exclusive: true, object: "value" },
  studies: { exclusive: true, object: "value" },
  species: { exclusive: true, object: "value" },
  likes: { exclusive: false, object: "value" },
  owns: { exclusive: false, object: "object" },
};

/** The spec of a predicate: a known one's, else a relation to any number of objects. */
export function predicateSpec(predicate: string): PredicateSpec {
  return PREDICATES[predicate] ?? { exclusive: false, object: "other" };
}

/**
 * "Has Teacher", "has_teacher", "is-teacher-of" → `teacher`, `teacher_of`: lower case, words
 * joined by `_`, a leading "has" / "is" dropped.
 *
 * @example
 * normalizePredicate("Has Teacher"); // "teacher"
 */
export function normalizePredicate(predicate: string): string {
  const words = predicate
    .trim()
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  while (words.length > 1 && (words[0] === "has" || words[0] === "is" || words[0] === "have")) words.shift();
  return words.join("_");
}

/**
 * Words of a question that name a relation, and the predicates they mean: "What are Maya's
 * kids' names?" asks along `son`, `daughter` and `child`; "Where does she live?" along `lives_in`.
 */
const QUERY_WORDS: Readonly<Record<string, readonly string[]>> = {
  partner: ["partner"],
  wife: ["partner"],
  husband: ["partner"],
  boyfriend: ["partner"],
  girlfriend: ["partner"],
  spouse: ["partner"],
  married: ["partner"],
  mother: ["mother"],
  mom: ["mother"],
  mum: ["mother"],
  father: ["father"],
  dad: ["father"],
  parent: ["mother", "father"],
  parents: ["mother", "father"],
  son: ["son", "child"],
  sons: ["son", "child"],
  daughter: ["daughter", "child"],
  daughters: ["daughter", "child"],
  child: ["son", "daughter", "child"],
  children: ["son", "daughter", "child"],
  kid: ["son", "daughter", "child"],
  kids: ["son", "daughter", "child"],
  brother: ["brother", "sibling"],
  brothers: ["brother", "sibling"],
  sister: ["sister", "sibling"],
  sisters: ["sister", "sibling"],
  sibling: ["brother", "sister", "sibling"],
  siblings: ["brother", "sister", "sibling"],
  grandmother: ["grandmother"],
  grandma: ["grandmother"],
  grandfather: ["grandfather"],
  grandpa: ["grandfather"],
  grandchildren: ["grandson", "granddaughter"],
  cousin: ["cousin"],
  friend: ["friend", "best_friend"],
  friends: ["friend", "best_friend"],
  colleague: ["colleague"],
  colleagues: ["colleague"],
  coworker: ["colleague"],
  boss: ["boss"],
  manager: ["boss"],
  teacher: ["teacher"],
  teachers: ["teacher"],
  doctor: ["doctor"],
  pet: ["pet"],
  pets: ["pet"],
  dog: ["pet"],
  dogs: ["pet"],
  cat: ["pet"],
  cats: ["pet"],
  live: ["lives_in", "located_in"],
  lives: ["lives_in", "located_in"],
  living: ["lives_in"],
  moved: ["lives_in", "located_in"],
  home: ["lives_in"],
  located: ["located_in"],
  from: ["from"],
  grew: ["from"],
  born: ["from"],
  work: ["works_at", "occupation"],
  works: ["works_at", "occupation"],
  job: ["works_at", "occupation"],
  employer: ["works_at"],
  company: ["works_at"],
  school: ["studies_at", "attends"],
  study: ["studies_at", "studies"],
  studies: ["studies_at", "studies"],
  university: ["studies_at", "graduated_from"],
  college: ["studies_at", "graduated_from"],
  graduated: ["graduated_from"],
  member: ["member_of"],
  club: ["member_of"],
  team: ["member_of"],
};

/**
 * The predicates a question's words ask along (lower-case words in, predicates out).
 *
 * @example
 * predicatesAsked(["where", "does", "maya's", "teacher", "live"]); // Set {"teacher", "lives_in", "located_in"}
 */
export function predicatesAsked(words: readonly string[]): Set<string> {
  const asked = new Set<string>();
  for (const word of words) for (const predicate of QUERY_WORDS[word.replace(/'s?$/, "")] ?? []) asked.add(predicate);
  return asked;
}
