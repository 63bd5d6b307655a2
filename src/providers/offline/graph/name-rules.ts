import type { EntityKind } from "../../../vocabulary/entity-kinds.js";
import { isVocative } from "../../../vocabulary/vocatives.js";
import type { ExtractedEntity } from "../../extraction.js";
import type { Clause } from "../facts/clauses.js";
import { looksLikeName } from "../facts/phrases.js";
import { NAME } from "./graph-words.js";
import { entity } from "./relation-rules.js";

const TITLE = /^(?:Mr|Mrs|Ms|Dr|Prof|Coach|Aunt|Uncle)\.?$/;
const PRONOUNS = /^(?:I|We|He|She|They|It|You|This|That|There|Here|My|Our|His|Her|Their|Your)$/;
const readsAsName = (name: string, clause: Clause) => {
  const words = name.split(/\s+/);
  const first = TITLE.test(words[0] as string) ? words[1] : words[0];
  return first !== undefined && looksLikeName(first, clause);
};

/**
 * Renames and second names: "Kim now goes by Kai", "Kim changed her name to Kai" (a rename: Kai
 * is who Kim is now); "my friend Alexander, everyone calls him Sasha", "Elizabeth (Liz for short)",
 * "Alexander goes by Sasha" (an alias). `lastNamed` is the person the turn named last, whom "him"
 * or "her" refers to.
 */
export function namesOf(clause: Clause, seq: number, lastNamed: string | null): ExtractedEntity[] {
  const text = clause.text;
  const found: ExtractedEntity[] = [];
  const renamed = new RegExp(
    `(${NAME}) (?:now goes by|has changed (?:his|her|their) name to|changed (?:his|her|their) name to|is now called|is now named|now calls (?:himself|herself|themselves)) (${NAME})`,
    "u",
  ).exec(text);
  if (renamed && readsAsName(renamed[1] as string, clause) && readsAsName(renamed[2] as string, clause)) {
    found.push(entity(renamed[2] as string, "person", seq, { renamed_from: renamed[1] as string }));
    return found;
  }
  const aka = new RegExp(`(${NAME}),? (?:also known as|aka|a\\.k\\.a\\.|who goes by|goes by) (${NAME})`, "u").exec(text);
  const short = new RegExp(`(${NAME}),? \\(?(?:or )?(${NAME}) for short\\)?`, "u").exec(text);
  const pair = aka ?? short;
  if (pair && readsAsName(pair[1] as string, clause) && readsAsName(pair[2] as string, clause)) {
    found.push(entity(stripPossessive(pair[1] as string), "person", seq, { aliases: [pair[2] as string] }));
    return found;
  }
  const called = new RegExp(
    `\\b(?:everyone|everybody|we|they|people|friends|I) (?:all )?(?:calls?|know) (?:him|her|them) (?:as )?(${NAME})`,
    "u",
  ).exec(text);
  if (called && lastNamed && readsAsName(called[1] as string, clause))
    found.push(entity(lastNamed, "person", seq, { aliases: [called[1] as string] }));
  return found;
}

const stripPossessive = (name: string) => name.replace(/['’]s$/, "");

const KIND_BY_TAG: [tag: string, kind: EntityKind][] = [
  ["Person", "person"],
  ["FirstName", "person"],
  ["LastName", "person"],
  ["Honorific", "person"],
  ["Country", "place"],
  ["City", "place"],
  ["Region", "place"],
  ["Place", "place"],
  ["Organization", "organisation"],
];

/**
 * People, places and organisations a statement names by proper name (compromise's tags), left
 * out when the name addresses the listener ("Thanks, Melanie") or is the speaker's own. The first
 * word of a sentence is taken only when the tagger knows it as a name: capitalised, any word
 * starts a sentence.
 */
export function namedIn(clause: Clause, seq: number, speakers: ReadonlySet<string>): ExtractedEntity[] {
  const found: ExtractedEntity[] = [];
  const text = clause.text;
  for (const match of text.matchAll(new RegExp(NAME, "gu"))) {
    const name = stripPossessive((match[0] as string).replace(/[.,;:!?]+$/, ""));
    const start = match.index ?? 0;
    if (speakers.has(name.toLowerCase())) continue;
    const words = name.split(/\s+/);
    const head = TITLE.test(words[0] as string) ? (words[1] ?? "") : (words[0] as string);
    if (PRONOUNS.test(head)) continue;
    const tags = clause.tagsOf(head);
    const kind = TITLE.test(words[0] as string) ? "person" : KIND_BY_TAG.find(([tag]) => tags.has(tag))?.[1];
    if (!kind) continue;
    // Only a person is spoken to: "my home country, Sweden" names a place.
    if (kind === "person" && (!looksLikeName(head, clause) || isVocative(text, start, (match[0] as string).length))) continue;
    if (start === 0 && !tags.has("Person") && !tags.has("Place") && !tags.has("Organization") && !tags.has("Country") && !tags.has("City"))
      continue;
    found.push(entity(name, kind, seq));
  }
  return found;
}
